import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "bullmq";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisRole } from "@reviewbot/queue/redis-acl";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { redisTargetEnv, type RedisTarget } from "@reviewbot/queue/redis-target";
import { newWorkerCredential, parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";
import { startApp, type AppProcess } from "../support/app-process.js";
import { startGitHttpServer, type GitHttpServer } from "../support/git-http-server.js";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { startRedisCluster, type RedisClusterSet } from "../support/redis-cluster.js";
import { startRedisSentinelSet, type RedisSentinelSet } from "../support/redis-sentinel.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { sendWebhook } from "../support/webhook-client.js";
import { openFleetEngine, type FleetEngine } from "./fleet-engine.js";

export const APP_ID = 31337;
export const INSTALLATION_ID = 4711;
export const SECRET = `whsec-${randomBytes(16).toString("hex")}`;
/** One credential per worker process the fleet may start (the api's registry lists them all from the start). */
export const WORKER_CREDENTIALS = Array.from({ length: 6 }, (_, index) => newWorkerCredential(`worker-${index}`));
export const DASHBOARD_PASSWORD = randomBytes(12).toString("hex");

/**
 * The whole fleet as real processes: an AOF-persistent Redis, a GitHub stand-in (API) and a git
 * HTTP server (clones) that accepts only the tokens the stand-in minted, one api process holding
 * the App key, and worker processes holding only their own credential. Redis runs with the
 * project's ACL users: the api and the workers connect as their roles; the suite's own
 * connections (`reviews`, `tasks`, `redis.url`) as the admin.
 */
export interface Fleet {
  /** The Redis server (with `redis: "sentinel"`, the first primary; with `redis: "cluster"`, the primary holding the keys). */
  readonly redis: LocalRedis;
  /** The Sentinel deployment the fleet reaches Redis through, with `redis: "sentinel"`. */
  readonly sentinel: RedisSentinelSet | null;
  /** The Cluster the fleet reaches Redis through, with `redis: "cluster"`. */
  readonly cluster: RedisClusterSet | null;
  readonly github: GitHubStandIn;
  readonly git: GitHttpServer;
  /** Directory served by the git server: `<gitRoot>/<owner>/<name>.git`. */
  readonly gitRoot: string;
  /** Scratch directory of this fleet (caches, Redis data), removed by `stop`. */
  readonly root: string;
  /** Where the workers' sandbox engine keeps state outside `root` (a Docker daemon's directories; none for bwrap). */
  readonly engineDirs: readonly string[];
  readonly api: AppProcess;
  readonly apiUrl: string;
  readonly workers: AppProcess[];
  readonly reviews: Queue;
  readonly tasks: Queue;
  /** Starts one more worker process and waits until it takes jobs. */
  addWorker(env?: Readonly<Record<string, string>>): Promise<AppProcess>;
  /** Sends a signed delivery to the api. */
  deliver(event: string, body: unknown, deliveryId?: string): Promise<{ status: number; body: string }>;
  /** Every log line of every process so far. */
  allLogs(): string;
  stop(): Promise<void>;
}

export interface FleetOptions {
  /** `owner/name` → repository id, for the stand-in. */
  readonly repositories: Readonly<Record<string, number>>;
  readonly workers?: number;
  readonly workerEnv?: Readonly<Record<string, string>>;
  /** Extra or overriding env of the api process (e.g. a small REVIEWBOT_WEBHOOK_MAX_BYTES). */
  readonly apiEnv?: Readonly<Record<string, string>>;
  /** The sandbox engine the workers run helpers on (under `require`); bwrap unless given. */
  readonly engine?: FleetEngine;
  /** REVIEWBOT_REDIS_PREFIX of the api and the workers; Redis's ACL users and the suite's queues follow it. */
  readonly redisPrefix?: string;
  /**
   * One Redis server (the default), a primary and a replica behind a Sentinel, or a three-primary
   * Cluster with a replica of the primary holding the keys (needs a `redisPrefix` with a hash tag).
   */
  readonly redis?: "single" | "sentinel" | "cluster";
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const root = await reachableTempDir("e2e");
  const gitRoot = join(root, "git");
  mkdirSync(gitRoot, { recursive: true });
  mkdirSync(join(root, "redis"), { recursive: true });
  const engine = await openFleetEngine(options.engine ?? "bwrap");
  const keys = redisKeyspace(options.redisPrefix);
  const prefixEnv = options.redisPrefix === undefined ? {} : { REVIEWBOT_REDIS_PREFIX: options.redisPrefix };
  const sentinel = options.redis === "sentinel" ? await startRedisSentinelSet(join(root, "redis")) : null;
  const cluster = options.redis === "cluster" ? await startRedisCluster(keys, { withReplica: true }) : null;
  const redis = sentinel?.primary ?? cluster?.holder ?? (await startLocalRedis({ dataDir: join(root, "redis"), acl: true, keys }));
  const roles = redis.roles;
  if (roles === null) throw new Error("redis started without ACL users");
  const roleTarget = (role: RedisRole): RedisTarget =>
    sentinel?.target(role) ?? cluster?.target(role) ?? { kind: "url", url: roles[role].url, password: roles[role].password };
  const workersFile = join(root, "workers");
  writeFileSync(workersFile, WORKER_CREDENTIALS.map((credential) => registryLine(parseWorkerCredential(credential) ?? { name: "", secret: "" })).join("\n"));
  const key = generateTestAppKey();
  const github = await startGitHubStandIn({
    appId: APP_ID,
    publicKey: key.publicKey,
    repositories: options.repositories,
    // What the hosted repositories hold at a commit, so the stand-in can tell outdated review threads.
    fileAt: (sha, path) => {
      for (const repository of Object.keys(options.repositories)) {
        try {
          return execFileSync("git", ["-C", join(gitRoot, `${repository}.git`), "cat-file", "blob", `${sha}:${path}`], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "ignore"],
          });
        } catch {
          // Not this repository's commit (or not hosted yet): try the next.
        }
      }
      return null;
    },
  });
  const git = await startGitHttpServer({
    projectRoot: gitRoot,
    username: "x-access-token",
    token: (password) => github.state.tokens.has(password),
    home: join(root, "git-home"),
  });
  mkdirSync(join(root, "git-home"), { recursive: true });
  const api = startApp("api", "api", {
    ...redisTargetEnv(roleTarget("api")),
    REVIEWBOT_LOG_LEVEL: "info",
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    GITHUB_APP_ID: String(APP_ID),
    GITHUB_PRIVATE_KEY: key.privateKey,
    GITHUB_API_URL: github.url,
    REVIEWBOT_WORKERS_FILE: workersFile,
    REVIEWBOT_DASHBOARD_PASSWORD: DASHBOARD_PASSWORD,
    REVIEWBOT_REVIEW_COMMENTS: "on",
    ...prefixEnv,
    ...options.apiEnv,
  });
  const listening = JSON.parse(await api.waitForLog(/"api listening"/)) as { port: number };
  const apiUrl = `http://127.0.0.1:${listening.port}`;
  const connection = createRedisConnection(roleTarget("admin"), { name: "suite", blocking: true });
  const reviews = new Queue(REVIEW_QUEUE, { connection, prefix: keys.bull });
  const tasks = new Queue(GITHUB_QUEUE, { connection, prefix: keys.bull });
  const workers: AppProcess[] = [];
  const addWorker = async (env: Readonly<Record<string, string>> = {}): Promise<AppProcess> => {
    const index = workers.length;
    const credential = WORKER_CREDENTIALS[index];
    if (credential === undefined) throw new Error(`the fleet has credentials for ${WORKER_CREDENTIALS.length} workers`);
    const worker = startApp("worker", `worker-${index}`, {
      ...redisTargetEnv(roleTarget("worker")),
      REVIEWBOT_LOG_LEVEL: "info",
      REVIEWBOT_SOURCE: "github",
      REVIEWBOT_API_URL: apiUrl,
      REVIEWBOT_WORKER_CREDENTIAL: credential,
      REVIEWBOT_GIT_URL: git.url,
      REVIEWBOT_CACHE_DIR: join(root, `cache-${index}`),
      ...engine.env,
      REVIEWBOT_SANDBOX: "require",
      REVIEWBOT_WORKER_PORT: "0",
      REVIEWBOT_CONCURRENCY: "2",
      REVIEWBOT_LOCK_DURATION_MS: "5000",
      REVIEWBOT_SHUTDOWN_GRACE_MS: "2000",
      ...prefixEnv,
      ...options.workerEnv,
      ...env,
    });
    workers.push(worker);
    await worker.waitForLog(/"worker started"/, 120_000);
    return worker;
  };
  const stop = async (): Promise<void> => {
    await Promise.all(workers.map((worker) => worker.stop("SIGKILL")));
    await api.stop("SIGKILL");
    await reviews.close();
    await tasks.close();
    connection.disconnect();
    await git.close();
    await github.close();
    await (sentinel ?? cluster ?? redis).stop();
    await engine.close();
    await rm(root, { recursive: true, force: true });
  };
  try {
    // Started side by side (each has its own cache), so a two-worker fleet starts about as fast as one.
    await Promise.all(Array.from({ length: options.workers ?? 1 }, () => addWorker()));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    redis,
    sentinel,
    cluster,
    github,
    git,
    gitRoot,
    root,
    engineDirs: engine.stateDirs,
    api,
    apiUrl,
    workers,
    reviews,
    tasks,
    addWorker,
    deliver: (event, body, deliveryId = randomUUID()) => sendWebhook(`${apiUrl}/api/github/webhooks`, { event, deliveryId, body, secret: SECRET }),
    allLogs: () => [api, ...workers].map((process) => process.logs()).join("\n"),
    stop,
  };
}

/** Polls until `condition` returns a value other than undefined/false and returns it; throws naming `what` after `timeoutMs`. */
export async function waitUntil<T>(condition: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
