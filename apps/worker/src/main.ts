#!/usr/bin/env node
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Worker } from "bullmq";
import { createCloser } from "@reviewbot/core/create-closer";
import { isAppError } from "@reviewbot/core/errors";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { settleWithin } from "@reviewbot/core/settle-within";
import { subscribeCancels } from "@reviewbot/queue/cancel-channel";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { holderAnswers } from "@reviewbot/queue/redis-client";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { redisSecrets } from "@reviewbot/queue/redis-target";
import { createReviewRuntime, type ReviewRuntime } from "@reviewbot/runtime/create-review-runtime";
import { createGitHubSource } from "./github-source.js";
import { createHealthServer, type HealthChecks } from "./health-server.js";
import { registerReadinessMetrics } from "./readiness-metrics.js";
import { createJobClient } from "./job-client.js";
import { createLocalSource } from "./local-source.js";
import { processReviewJob } from "./process-review-job.js";
import type { ReviewSource } from "./review-source.js";
import { RunningJobs } from "./running-jobs.js";
import { loadWorkerConfig } from "./worker-config.js";
import { createWorkerMetrics } from "./worker-metrics.js";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** A PR lease outlives a frozen worker by at most this long; renewed every 10 s while held. */
const LEASE_TTL_MS = 30_000;

/** How long the Redis server holding the keyspace may take to answer PING before the worker is not ready. */
const REDIS_READY_DEADLINE_MS = 1000;

/** Composition root of the worker: env, Redis, the review runtime, BullMQ worker, signals. */
async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env);
  const scrubber = new SecretScrubber();
  for (const secret of [config.REVIEWBOT_WORKER_CREDENTIAL, ...redisSecrets(config.redis)]) scrubber.register(secret);
  const logger = createLogger({ name: "reviewbot-worker", level: config.REVIEWBOT_LOG_LEVEL, scrubber });
  const source: ReviewSource = config.source.kind === "local" ? createLocalSource(config.source.reposDir) : createGitHubSource(config.source.gitUrl, scrubber);
  const jobs = createJobClient({ apiUrl: config.REVIEWBOT_API_URL, credential: config.REVIEWBOT_WORKER_CREDENTIAL, timeoutMs: 30_000 });

  const metrics = createWorkerMetrics();
  let sandboxHealth: ReviewRuntime["health"] | null = null;
  const keys = redisKeyspace(config.REVIEWBOT_REDIS_PREFIX);
  const commands = createRedisConnection(config.redis, { name: "worker-commands", blocking: false });
  const checks: HealthChecks = {
    redisReady: () => holderAnswers(commands, keys.ours, REDIS_READY_DEADLINE_MS),
    sandbox: () => sandboxHealth?.check() ?? Promise.resolve({ healthy: false, reason: "the sandbox engine is being prepared" }),
  };
  registerReadinessMetrics(metrics.registry, checks);
  const health = createHealthServer(checks, metrics.registry);
  health.listen(config.REVIEWBOT_WORKER_PORT, config.REVIEWBOT_WORKER_HOST);
  await once(health, "listening");
  logger.info({ port: (health.address() as AddressInfo).port }, "health server listening");

  const runtime = await createReviewRuntime(config, logger, { scrubber, allowedProtocols: source.protocols, onRun: metrics.countSandboxRun });
  sandboxHealth = runtime.health;
  const { cache, engine, operator, installHooks } = runtime;

  const blocking = createRedisConnection(config.redis, { name: "worker-blocking", blocking: true });
  const subscriber = createRedisConnection(config.redis, { name: "worker-cancels", blocking: true });
  const running = new RunningJobs({ deadlineMs: config.REVIEWBOT_REVIEW_DEADLINE_MS });
  const unsubscribe = await subscribeCancels(subscriber, keys, (jobId) => {
    if (running.cancel(jobId, "cancel requested")) logger.info({ jobId }, "cancel requested for a running review");
  });
  const deps = {
    redis: commands,
    keys,
    jobs,
    source,
    cache,
    engine,
    operator,
    logger,
    scrubber,
    reviewDeadlineMs: config.REVIEWBOT_REVIEW_DEADLINE_MS,
    running,
    metrics,
    leaseTtlMs: LEASE_TTL_MS,
    leaseRetryMs: 1000,
    filterMode: "added" as const,
    ...(installHooks === undefined ? {} : { installHooks }),
  };
  // BullMQ renews a running job's lock every lockDuration/2, so the lock need not outlast the
  // longest helper deadline: it only has to outlast the longest event-loop stall (a renewal that
  // comes too late marks the job stalled and another worker runs it twice). A killed worker stops
  // renewing: after lockDuration the job is stalled, and maxStalledCount 1 lets another worker
  // take it once more before it fails for good (a job that kills its worker twice is suspect).
  const worker = new Worker(REVIEW_QUEUE, (job, token) => processReviewJob(job, token, deps), {
    connection: blocking,
    prefix: keys.bull,
    concurrency: config.REVIEWBOT_CONCURRENCY,
    lockDuration: config.REVIEWBOT_LOCK_DURATION_MS,
    stalledInterval: Math.min(30_000, config.REVIEWBOT_LOCK_DURATION_MS),
    maxStalledCount: 1,
    autorun: false,
  });
  worker.on("error", (err) => {
    logger.error({ err }, "worker error");
  });

  let closing: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals): Promise<void> => {
    closing ??= (async () => {
      logger.info({ signal, running: running.size, graceMs: config.REVIEWBOT_SHUTDOWN_GRACE_MS }, "shutting down");
      // A close while BullMQ still opens its blocking connection drops that connection's error
      // listeners, and the open's failure then throws uncaught (exit 1): let the open settle first,
      // for at most a second (at once when it has; a worker not yet open takes no job meanwhile).
      await settleWithin(
        worker.waitUntilReady().catch(() => undefined),
        1000,
        undefined,
      );
      const stopped = worker.close(); // stop taking jobs now; the step below awaits the same close
      if (!(await running.drain(config.REVIEWBOT_SHUTDOWN_GRACE_MS))) {
        logger.warn({ running: running.size }, "grace period over: handing running reviews back");
        running.handBackAll();
      }
      const clean = await createCloser(
        [
          ["worker", () => stopped],
          ["cancels", unsubscribe],
          ["review runtime", () => runtime.close()],
          ["health", () => new Promise((resolve) => health.close(resolve))],
          ["redis", () => Promise.all([blocking.quit(), subscriber.quit(), commands.quit()])],
        ],
        logger,
      )();
      logger.info("worker stopped");
      if (!clean) throw new Error("a shutdown step failed");
    })();
    return closing;
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      shutdown(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  logger.info(
    { source: source.name, engine: engine.name, concurrency: config.REVIEWBOT_CONCURRENCY, reviewDeadlineMs: config.REVIEWBOT_REVIEW_DEADLINE_MS },
    "worker started",
  );
  void worker.run();
}

main().catch((err: unknown) => {
  const message = isAppError(err) ? `${err.code}: ${err.message}` : String(err);
  process.stderr.write(`reviewbot-worker: ${message.split("\n", 1)[0] ?? ""}\n`);
  process.exit(2);
});
