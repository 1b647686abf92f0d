import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue, type Job } from "bullmq";
import { Redis } from "ioredis";
import type { GitHubTask } from "@reviewbot/contracts/github-task";
import { openLiveJob } from "@reviewbot/queue/live-job-record";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { REVIEW_JOB_OPTIONS } from "@reviewbot/queue/review-queue";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { SEAL, startApi, type ApiHarness, type HarnessOptions } from "../api/api-harness.js";
import { startLocalRedis, type LocalRedis } from "./local-redis.js";
import { REVIEW_OPERATOR, createSampleRepo } from "./review-fixture.js";
import { createReviewRepo, type ReviewRepoOptions } from "./review-repos.js";
import { reachableTempDir } from "./temp-dirs.js";
import { startWorker, type WorkerProcess } from "./worker-process.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

/**
 * Everything a worker suite shares: a private Redis with the project's ACL users, the real api app
 * in-process (worker routes on, no publisher, so its tasks stay on the GitHub queue for the suite
 * to read), a repositories dir, a cache, the queues.
 */
export interface WorkerStand {
  readonly redis: LocalRedis;
  readonly api: ApiHarness;
  /** Seals jobs as the api does (enqueueReview's third argument). */
  readonly seal: QueueSeal;
  readonly connection: Redis;
  readonly reviews: Queue;
  readonly github: Queue;
  readonly reposDir: string;
  /** The environment a worker of this stand starts with (local source, bwrap engine). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Adds a job straight to the queue, without supersession, as the api writes one otherwise: sealed
   * and recorded as live (the api refuses a claim on a job it has no live record of).
   */
  addRaw(job: ReviewJob, id?: string): Promise<string>;
  start(extra?: Readonly<Record<string, string>>): Promise<WorkerProcess>;
  close(): Promise<void>;
}

/** `api`: the in-process api's per-installation cap settings (defaults as the harness's). */
export async function openWorkerStand(
  label: string,
  options: { api?: Pick<HarnessOptions, "installationConcurrency" | "slotTtlMs"> } = {},
): Promise<WorkerStand> {
  const root = await reachableTempDir(label);
  const reposDir = join(root, "repos");
  mkdirSync(reposDir);
  const policyFile = join(root, "policy.json");
  await writeFile(policyFile, JSON.stringify({ limits: REVIEW_OPERATOR.limits }));
  const redis = await startLocalRedis({ acl: true });
  const roles = redis.roles;
  if (roles === null) throw new Error("redis started without ACL users");
  const api = await startApi({ redisUrl: redis.url, workers: 4, ...options.api });
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const reviews = new Queue(REVIEW_QUEUE, { connection });
  const github = new Queue(GITHUB_QUEUE, { connection });
  const env = {
    REDIS_URL: roles.worker.url,
    REDIS_PASSWORD: roles.worker.password,
    REVIEWBOT_API_URL: api.url,
    REVIEWBOT_SOURCE: "local",
    REVIEWBOT_LOCAL_REPOS_DIR: reposDir,
    REVIEWBOT_ENGINE: "bwrap",
    REVIEWBOT_CACHE_DIR: join(root, "cache"),
    REVIEWBOT_POLICY_FILE: policyFile,
  };
  const workers: WorkerProcess[] = [];
  return {
    redis,
    api,
    seal: SEAL,
    connection,
    reviews,
    github,
    reposDir,
    env,
    async addRaw(job, id = `review.raw.${randomUUID()}`) {
      await openLiveJob(connection, DEFAULT_KEYSPACE, id, job);
      await reviews.add("review", SEAL.seal(id, job), { ...REVIEW_JOB_OPTIONS, jobId: id });
      return id;
    },
    async start(extra = {}) {
      const credential = api.workerCredentials[workers.length % api.workerCredentials.length] ?? "";
      const worker = await startWorker({ ...env, REVIEWBOT_WORKER_CREDENTIAL: credential, ...extra });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.stop("SIGKILL")));
      await reviews.close();
      await github.close();
      connection.disconnect();
      await api.close();
      await redis.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A review job for a local repository `acme/<name>` with the given SHAs. */
export function localJob(name: string, heads: { baseSha: string; headSha: string }, overrides: Partial<ReviewJob> = {}): ReviewJob {
  return {
    installationId: 1,
    repositoryId: 1000 + Math.floor(Math.random() * 1_000_000),
    repository: `acme/${name}`,
    pullNumber: 7,
    baseRef: "main",
    defaultBranch: "main",
    repositoryPrivate: true,
    pullUpdatedAt: new Date().toISOString(),
    headFrom: "event",
    deliveryId: randomUUID(),
    trigger: "local",
    reply: null,
    baseSha: heads.baseSha,
    headSha: heads.headSha,
    ...overrides,
  };
}

/** Creates `acme/<name>` under the stand's repositories dir from a review repo; returns its SHAs. */
export function addReviewRepo(stand: WorkerStand, options: ReviewRepoOptions): { name: string; baseSha: string; headSha: string } {
  const name = `repo-${randomUUID().slice(0, 8)}`;
  const scratch = join(stand.reposDir, "..", `scratch-${name}`);
  const upstream = createReviewRepo(scratch, options);
  const shas = { baseSha: upstream.rev("main"), headSha: upstream.rev("fork") };
  mkdirSync(join(stand.reposDir, "acme"), { recursive: true });
  renameSync(upstream.dir, join(stand.reposDir, "acme", name));
  return { name, ...shas };
}

/** Creates the bundled sample as `acme/sample`; returns its SHAs. */
export function addSampleRepo(stand: WorkerStand): { name: string; baseSha: string; headSha: string } {
  const dir = createSampleRepo(join(stand.reposDir, "acme"));
  const rev = (ref: string): string =>
    execFileSync("git", ["-C", dir, "rev-parse", ref], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_GLOBAL: "/dev/null" },
    }).trim();
  return { name: "sample", baseSha: rev("main"), headSha: rev("fork") };
}

/** Waits for the publisher task `<kind>.<reviewJobId>` on the GitHub queue. */
export async function waitForTask(github: Queue, id: string, timeoutMs = 90_000): Promise<GitHubTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await github.getJob(id)) as Job<GitHubTask> | undefined;
    if (job !== undefined) return job.data;
    if (Date.now() > deadline) throw new Error(`no task ${id} on the GitHub queue`);
    await sleep(100);
  }
}

/** Waits until the review job reaches one of `states`; returns the state. */
export async function waitForState(reviews: Queue, id: string, states: readonly string[], timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await reviews.getJobState(id);
    if (states.includes(state)) return state;
    if (Date.now() > deadline) throw new Error(`review job ${id} is ${state}, not ${states.join("/")}`);
    await sleep(100);
  }
}
