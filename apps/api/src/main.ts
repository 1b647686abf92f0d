#!/usr/bin/env node
import { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import { createLogger, type Logger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { appSlugOf } from "@reviewbot/github/app-identity";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { redisKeyspace, type RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { loadApiConfig, type ApiConfig } from "./api-config.js";
import { createApiMetrics } from "./api-metrics.js";
import { registerInstallationQueueAge } from "./installation-queue-age.js";
import { createModelUsageMetrics } from "./model-usage-metrics.js";
import { buildBroker } from "./start/build-broker.js";
import { buildHttpApp } from "./start/build-http-app.js";
import { buildPublisher } from "./start/build-publisher.js";
import { buildWorkerRoutes } from "./start/build-worker-routes.js";
import { listen } from "./start/listen.js";
import { openRedis } from "./start/open-redis.js";
import { openSink } from "./start/open-sink.js";
import { startRedeliverySweep } from "./start/start-redelivery-sweep.js";
import { wireSignals } from "./start/wire-signals.js";
import { createReplicaQuorum } from "./webhooks/replica-quorum.js";
import { redisSecrets } from "@reviewbot/queue/redis-target";

/** Composition root of the API: env → clients → publisher, broker, HTTP app → listen, signals. */
async function main(): Promise<void> {
  const config = loadApiConfig(process.env);
  const { logger, scrubber } = createRootLogger(config);
  // The queue seal's key derives from the webhook secret: workers hold neither (deployment.md).
  const seal = QueueSeal.fromSecret(config.REVIEWBOT_WEBHOOK_SECRET);
  const redis = openRedis(config, logger);
  const keys = redisKeyspace(config.REVIEWBOT_REDIS_PREFIX);
  const queues = openQueues(redis.api, keys);
  const metrics = createApiMetrics([queues.reviews, queues.github]);
  registerInstallationQueueAge(metrics.registry, queues.reviews, seal);
  const { app, sink } = await openSink(config, { redis: redis.api, keys, scrubber, logger, metrics });
  const appId = config.sink.kind === "github" ? config.sink.appId : null;
  const publisher = buildPublisher({
    app,
    appId,
    sink,
    reviews: queues.reviews,
    github: queues.github,
    redis,
    keys,
    seal,
    metrics,
    logger,
    reviewDrafts: config.REVIEWBOT_DRAFTS !== "never",
  });
  const broker = buildBroker(config, { app, redis: redis.api, keys, reviews: queues.reviews, scrubber, logger });
  warnAboutDisabledParts(config, logger);
  const workers = buildWorkerRoutes(config, broker, { app, redis: redis.api, keys, scrubber, usage: createModelUsageMetrics(metrics.registry) });
  const appSlug = app === null || appId === null ? null : appSlugOf(app, appId);
  const replicas = createReplicaQuorum(redis.api, keys, { minReplicas: config.REVIEWBOT_REDIS_MIN_REPLICAS ?? null, waitMs: config.REVIEWBOT_REDIS_WAIT_MS });
  const api = buildHttpApp(config, { queues, seal, redis: redis.api, keys, metrics, logger, scrubber, workers, appSlug, replicas });
  const server = await listen(api, config);
  const redelivery = startRedeliverySweep(config, { app, redis: redis.api, keys, registry: metrics.registry, logger });
  wireSignals({ server, sweeper: broker.sweeper, redelivery, publisher, queues, redis }, logger);
  logger.info({ host: config.REVIEWBOT_HOST, port: (server.address() as { port: number }).port, sink: config.sink.kind }, "api listening");
}

/** The one root logger, its scrubber holding the operator's secrets before anything can log them. */
function createRootLogger(config: ApiConfig): { logger: Logger; scrubber: SecretScrubber } {
  const scrubber = new SecretScrubber();
  for (const secret of [config.REVIEWBOT_WEBHOOK_SECRET, config.REVIEWBOT_DASHBOARD_PASSWORD, ...redisSecrets(config.redis)]) {
    if (secret !== undefined) scrubber.register(secret);
  }
  return { logger: createLogger({ name: "reviewbot-api", level: config.REVIEWBOT_LOG_LEVEL, scrubber }), scrubber };
}

function openQueues(connection: RedisClient, keys: RedisKeyspace): { reviews: Queue; github: Queue } {
  return { reviews: new Queue(REVIEW_QUEUE, { connection, prefix: keys.bull }), github: new Queue(GITHUB_QUEUE, { connection, prefix: keys.bull }) };
}

function warnAboutDisabledParts(config: ApiConfig, logger: Logger): void {
  if (config.REVIEWBOT_DASHBOARD_PASSWORD === undefined) {
    logger.warn("dashboard disabled: REVIEWBOT_DASHBOARD_PASSWORD is not set");
  }
  if (config.REVIEWBOT_WORKERS_FILE === undefined) {
    logger.warn("worker routes disabled: REVIEWBOT_WORKERS_FILE is not set, so no worker can claim or report a job");
  }
}

main().catch((err: unknown) => {
  const message = err instanceof AppError ? `${err.code}: ${err.message}` : String(err);
  process.stderr.write(`reviewbot api: ${message}\n`);
  process.exit(1);
});
