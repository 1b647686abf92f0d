import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { AppError } from "@reviewbot/core/errors";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { newWorkerCredential, parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";
import { runtimeConfigEnv, type EngineChoiceSetting } from "@reviewbot/runtime/runtime-config";
import { startChildService, type ChildService } from "./child-service.js";
import type { CliConfig } from "./cli-config.js";
import { freePort } from "./free-port.js";
import { startPrivateRedis, type PrivateRedis } from "./private-redis.js";
import { describeRedisTarget, redisTargetEnv, type RedisTarget } from "@reviewbot/queue/redis-target";
import { renderSinkResult } from "./render-sink-result.js";
import { submitReview, type Submission } from "./submit-review.js";
import { DEFAULT_PATH, inheritedEnv } from "@reviewbot/core/inherited-env";
import { redisKeyspace, type RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface FleetArgs {
  /** Stay up after the sample's review; undefined: only when stdout is a terminal. */
  readonly keepRunning: boolean | undefined;
  /** The worker's sandbox engine; undefined: `REVIEWBOT_ENGINE` as the CLI was given it. */
  readonly engine?: EngineChoiceSetting;
}

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SAMPLE = { repository: "local/sample", pullNumber: 1, base: "main", head: "fork" } as const;
const REVIEW_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * `reviewbot fleet`, the embedded defaults: a private Redis unless REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES names one, the real
 * API (local sink, dashboard behind a random password) and one worker (local source) as child
 * processes; the bundled sample PR is reviewed through the queue and its result printed with the
 * dashboard's address. On a terminal it stays up until Ctrl-C, then stops everything and removes
 * the private Redis. As in production: the private Redis has one ACL user per role, and the
 * worker has a credential of its own in the api's registry and none of the api's secrets.
 */
export async function fleetCommand(args: FleetArgs, config: CliConfig, write: (text: string) => void): Promise<number> {
  const dir = join(config.REVIEWBOT_CACHE_DIR, "fleet");
  const [reposDir, sinkDir, logDir] = [join(dir, "repos"), join(dir, "sink"), join(dir, "logs")];
  // The sample is deterministic (same head SHA every time): an old result must not pass for this run's.
  await rm(sinkDir, { recursive: true, force: true });
  for (const path of [reposDir, sinkDir, logDir]) await mkdir(path, { recursive: true, mode: 0o700 });
  const services: ChildService[] = [];
  let redis: PrivateRedis | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all(services.map((service) => service.stop(40_000)));
      await redis?.stop();
    })());
  const interrupted = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  const keys = redisKeyspace(config.REVIEWBOT_REDIS_PREFIX);
  try {
    let logins: PrivateRedis["roles"];
    if (config.redis === undefined) {
      redis = await startPrivateRedis(dir, await readFile(join(ROOT, "infra/redis/users.acl.template"), "utf8"), keys);
      logins = redis.roles;
    } else {
      logins = { api: config.redis, worker: config.redis, admin: config.redis };
    }
    const base = {
      ...inheritedEnv({ PATH: DEFAULT_PATH, HOME: "/" }),
      REVIEWBOT_LOG_LEVEL: "info",
      // The api and the worker use the same keyspace as this command and its Redis users.
      ...(config.REVIEWBOT_REDIS_PREFIX === undefined ? {} : { REVIEWBOT_REDIS_PREFIX: config.REVIEWBOT_REDIS_PREFIX }),
    };
    const password = randomBytes(18).toString("base64url");
    const webhookSecret = randomBytes(24).toString("base64url");
    const credential = newWorkerCredential("fleet-worker");
    const workersFile = join(dir, "workers");
    await writeFile(workersFile, `${registryLine(parseWorkerCredential(credential) ?? { name: "", secret: "" })}\n`, { mode: 0o600 });
    const apiPort = await freePort();
    services.push(
      startChildService(
        "api",
        [process.execPath, join(ROOT, "apps/api/dist/main.js")],
        {
          ...base,
          ...redisTargetEnv(logins.api),
          REVIEWBOT_HOST: "127.0.0.1",
          REVIEWBOT_PORT: String(apiPort),
          REVIEWBOT_WEBHOOK_SECRET: webhookSecret,
          REVIEWBOT_WORKERS_FILE: workersFile,
          REVIEWBOT_SINK: "local",
          REVIEWBOT_LOCAL_SINK_DIR: sinkDir,
          REVIEWBOT_DASHBOARD_USER: "admin",
          REVIEWBOT_DASHBOARD_PASSWORD: password,
        },
        join(logDir, "api.log"),
      ),
      startChildService(
        "worker",
        [process.execPath, join(ROOT, "apps/worker/dist/main.js")],
        {
          ...base,
          ...redisTargetEnv(logins.worker),
          ...runtimeConfigEnv(config),
          ...(args.engine === undefined ? {} : { REVIEWBOT_ENGINE: args.engine }),
          REVIEWBOT_API_URL: `http://127.0.0.1:${apiPort}`,
          REVIEWBOT_WORKER_CREDENTIAL: credential,
          REVIEWBOT_SOURCE: "local",
          REVIEWBOT_LOCAL_REPOS_DIR: reposDir,
          REVIEWBOT_WORKER_PORT: String(await freePort()),
        },
        join(logDir, "worker.log"),
      ),
    );
    write(
      `reviewbot fleet: redis ${config.redis === undefined ? "(private, one ACL user per role)" : describeRedisTarget(config.redis)}, api and worker started; logs in ${logDir}\n`,
    );
    await createSample(join(reposDir, SAMPLE.repository));
    const submission = await submitReview({ repoDir: reposDir, ...SAMPLE }, logins.api, keys, QueueSeal.fromSecret(webhookSecret));
    write(`reviewbot fleet: submitted ${SAMPLE.repository}#${SAMPLE.pullNumber} (${submission.job.headSha.slice(0, 12)}) as ${submission.outcome.jobId}\n\n`);
    const result = await Promise.race([
      waitForResult(sinkDir, submission, logins.api, keys, services),
      interrupted.then(() => {
        throw new Error("interrupted");
      }),
    ]);
    write(renderSinkResult(result));
    write(`\ndashboard: http://127.0.0.1:${apiPort}/admin/queues  (user admin, password ${password})\n`);
    if (args.keepRunning ?? process.stdout.isTTY) {
      write("reviewbot fleet: running; Ctrl-C stops it\n");
      await Promise.race([interrupted, ...services.map((service) => service.exited)]);
    }
    return 0;
  } finally {
    await stop();
  }
}

async function createSample(dest: string): Promise<void> {
  const service = startChildService("sample", ["bash", join(ROOT, "scripts/create-sample-repo.sh"), dest], inheritedEnv({ PATH: DEFAULT_PATH }), "/dev/null");
  const code = await service.exited;
  if (code !== "0") throw new AppError("GIT_FAILED", `scripts/create-sample-repo.sh exited ${code}`);
}

/** Polls for the local sink's file of the submitted head; fails early when the job or a service does. */
async function waitForResult(
  sinkDir: string,
  submission: Submission,
  redis: RedisTarget,
  keys: RedisKeyspace,
  services: readonly ChildService[],
): Promise<unknown> {
  const { job, outcome } = submission;
  const file = join(sinkDir, job.repository, String(job.pullNumber), `${job.headSha}.json`);
  const connection = createRedisConnection(redis, { name: "cli-fleet", blocking: false });
  const queue = new Queue(REVIEW_QUEUE, { connection, prefix: keys.bull });
  try {
    for (const deadline = Date.now() + REVIEW_TIMEOUT_MS; Date.now() < deadline;) {
      const result = await finishedResult(file);
      if (result !== null) return result;
      const dead = services.find((service) => service.child.exitCode !== null || service.child.signalCode !== null);
      if (dead !== undefined) throw new Error(`the fleet's ${dead.name} exited; see its log`);
      const review = await queue.getJob(outcome.jobId);
      if ((await review?.getState()) === "failed" && review !== undefined) {
        // The failure reaches the sink as a failed check run; give the publisher a moment.
        await sleep(2000);
        const late = await finishedResult(file);
        if (late !== null) return late;
        throw new Error(`the review failed: ${review.failedReason}`);
      }
      await sleep(250);
    }
    throw new Error(`no result after ${REVIEW_TIMEOUT_MS / 60_000} minutes`);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** The sink's file once the check run is completed (it says `in_progress` while the review runs). */
async function finishedResult(file: string): Promise<unknown> {
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) return null;
  const result = JSON.parse(text) as { status?: unknown } | null;
  return result?.status === "completed" ? result : null;
}
