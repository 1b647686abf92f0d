#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { createCloser } from "@reviewbot/core/create-closer";
import { AppError } from "@reviewbot/core/errors";
import { createLogger, type Logger } from "@reviewbot/core/logger";
import { SealedBox } from "@reviewbot/core/sealed-box";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { CHECK_RUN_NAME } from "@reviewbot/github/find-or-create-check-run";
import { createGitHubApp, type GitHubApp } from "@reviewbot/github/create-github-app";
import { createGitHubSink } from "@reviewbot/github/github-sink";
import { describePullRequest } from "@reviewbot/github/describe-pull-request";
import { readReplyThread } from "@reviewbot/github/read-reply-thread";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { resolvePullRequest } from "@reviewbot/github/resolve-pull-request";
import { revokeRepositoryToken } from "@reviewbot/github/revoke-repository-token";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { ReviewSink } from "@reviewbot/queue/review-sink";
import { toLlmSettings } from "@reviewbot/llm/llm-settings";
import { loadApiConfig, type ApiConfig } from "./api-config.js";
import { createModelBroker } from "./broker/model-broker.js";
import { createApiMetrics, type ApiMetrics } from "./api-metrics.js";
import { createApiApp } from "./routes/create-api-app.js";
import type { PullRequestResolver } from "./publisher/handle-github-task.js";
import { createLocalSink } from "./publisher/local-sink.js";
import { startPublisher } from "./publisher/start-publisher.js";
import type { TokenMinter } from "./broker/claim-handler.js";
import { InstallationSlots } from "./broker/installation-slots.js";
import { startTokenSweeper } from "./broker/token-sweeper.js";
import { TokenVault } from "./broker/token-vault.js";
import { WorkerRegistry } from "./broker/worker-registry.js";

/** Composition root of the API: env → clients → HTTP app, publisher, signals. */
async function main(): Promise<void> {
  const config = loadApiConfig(process.env);
  const scrubber = new SecretScrubber();
  for (const secret of [config.REVIEWBOT_WEBHOOK_SECRET, config.REVIEWBOT_DASHBOARD_PASSWORD, config.REDIS_PASSWORD]) {
    if (secret !== undefined) scrubber.register(secret);
  }
  const logger = createLogger({ name: "reviewbot-api", level: config.REVIEWBOT_LOG_LEVEL, scrubber });
  // The queue seal's key derives from the webhook secret: workers hold neither (deployment.md).
  const seal = QueueSeal.fromSecret(config.REVIEWBOT_WEBHOOK_SECRET);
  const redis = createRedisConnection(config.REDIS_URL, { name: "api", blocking: false, password: config.REDIS_PASSWORD });
  const blocking = createRedisConnection(config.REDIS_URL, { name: "publisher", blocking: true, password: config.REDIS_PASSWORD });
  for (const connection of [redis, blocking]) {
    connection.on("error", (err) => {
      logger.warn({ err, connection: connection.options.connectionName }, "redis connection error");
    });
  }
  const reviews = new Queue(REVIEW_QUEUE, { connection: redis });
  const github = new Queue(GITHUB_QUEUE, { connection: redis });
  const metrics = createApiMetrics([reviews, github]);
  const { app, sink } = await openSink(config, { redis, scrubber, logger, metrics });
  const resolve: PullRequestResolver | null =
    app === null ? null : async (task) => resolvePullRequest(await app.getInstallationOctokit(task.installationId), task);
  const mint: TokenMinter | null = app === null ? null : (installationId, repositoryId) => mintRepositoryToken(app, installationId, repositoryId);
  const publisher = startPublisher({ sink, resolve, reviews, redis, seal, blockingConnection: blocking, metrics, logger });
  const vault =
    app === null
      ? null
      : new TokenVault({
          redis,
          box: new SealedBox(config.REVIEWBOT_WEBHOOK_SECRET, "token-vault/v1"),
          revoke: (token) => revokeRepositoryToken(config.GITHUB_API_URL, token),
          scrubber,
          logger,
        });
  const slots = new InstallationSlots({ redis, reviews, limit: config.REVIEWBOT_INSTALLATION_CONCURRENCY, ttlMs: config.REVIEWBOT_INSTALLATION_SLOT_TTL_MS });
  // Tokens, installation slots and fair-share entries of jobs that ended without a report (issue 11).
  const sweeper = startTokenSweeper({ vault, slots, redis, reviews, logger });
  const registry = config.REVIEWBOT_WORKERS_FILE === undefined ? null : new WorkerRegistry(config.REVIEWBOT_WORKERS_FILE, logger);

  warnAboutDisabledParts(config, logger);
  const api = createApiApp({
    webhook: {
      secret: config.REVIEWBOT_WEBHOOK_SECRET,
      maxBytes: config.REVIEWBOT_WEBHOOK_MAX_BYTES,
      maxConcurrentReads: config.REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS,
      filter: {
        botLogins: config.REVIEWBOT_BOT_LOGINS,
        reviewCommand: config.REVIEWBOT_REVIEW_COMMAND,
        checkRunName: CHECK_RUN_NAME,
        appId: config.sink.kind === "github" ? config.sink.appId : null,
        pullRequestActions: config.REVIEWBOT_PR_ACTIONS,
        commandAssociations: config.REVIEWBOT_COMMAND_ASSOCIATIONS,
        // Replies are answered by the model: without one there is nothing to answer with.
        answers: config.REVIEWBOT_LLM_BASE_URL !== undefined,
      },
    },
    queues: { reviews, github },
    seal,
    redis,
    metrics,
    logger,
    scrubber,
    workers:
      registry === null
        ? null
        : {
            registry,
            tokens: mint === null || vault === null ? null : { mint, vault, ttlMs: config.REVIEWBOT_JOB_TOKEN_TTL_MS },
            slots,
            maxReportBytes: config.REVIEWBOT_REPORT_MAX_BYTES,
            model: createModelBroker(toLlmSettings(config), redis, scrubber),
            describe:
              app === null ? null : async (job) => describePullRequest(await app.getInstallationOctokit(job.installationId), job.repository, job.pullNumber),
            // Which comments of the thread are ours: the api's record of what it posted on the PR.
            thread:
              app === null
                ? null
                : async (job) => {
                    if (job.reply === null) return null;
                    const { comments } = await readReviewMemory(redis, job.repositoryId, job.pullNumber);
                    return readReplyThread(await app.getInstallationOctokit(job.installationId), job, job.reply, (id) => comments.includes(id));
                  },
          },
    dashboard:
      config.REVIEWBOT_DASHBOARD_PASSWORD === undefined ? null : { user: config.REVIEWBOT_DASHBOARD_USER, password: config.REVIEWBOT_DASHBOARD_PASSWORD },
  });
  const server = await listen(api, config);
  const close = createCloser(
    [
      ["http", () => stopServer(server)],
      [
        "sweeper",
        () => {
          sweeper.close();
          return Promise.resolve();
        },
      ],
      ["publisher", () => publisher.close()],
      ["reviews queue", () => reviews.close()],
      ["github queue", () => github.close()],
      ["redis", () => quitRedis(redis)],
      ["redis (publisher)", () => quitRedis(blocking)],
    ],
    logger,
  );
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, "api stopping");
    void close().then(() => {
      logger.info("api stopped");
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  logger.info({ host: config.REVIEWBOT_HOST, port: (server.address() as { port: number }).port, sink: config.sink.kind }, "api listening");
}

interface SinkDeps {
  readonly redis: Redis;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
  readonly metrics: ApiMetrics;
}

/** The configured sink, and the GitHub App behind it (none for the local sink). */
async function openSink(config: ApiConfig, deps: SinkDeps): Promise<{ app: GitHubApp | null; sink: ReviewSink }> {
  if (config.sink.kind === "local") return { app: null, sink: createLocalSink(config.sink.dir) };
  const app = await gitHubApp(config.sink, config.GITHUB_API_URL, deps);
  const { redis, logger, scrubber } = deps;
  return { app, sink: createGitHubSink({ app, appId: config.sink.appId, redis, logger, scrubber, reviewComments: config.REVIEWBOT_REVIEW_COMMENTS === "on" }) };
}

async function gitHubApp(sink: Extract<ApiConfig["sink"], { kind: "github" }>, baseUrl: string, deps: SinkDeps): Promise<GitHubApp> {
  const privateKey = await readPrivateKey(sink.privateKey);
  deps.scrubber.register(privateKey);
  return createGitHubApp({
    appId: sink.appId,
    privateKey,
    baseUrl,
    redis: deps.redis,
    scrubber: deps.scrubber,
    logger: deps.logger,
    onRequest: (route, status) => {
      deps.metrics.githubRequests.inc({ route, status: String(status) });
    },
    onRateLimitWait: (seconds, kind) => {
      deps.metrics.rateLimitWaits.inc({ kind });
      deps.metrics.rateLimitWaitSeconds.inc({ kind }, seconds);
    },
  });
}

async function readPrivateKey(key: { readonly pem: string } | { readonly file: string }): Promise<string> {
  if ("pem" in key) return key.pem.replace(/\\n/g, "\n");
  return readFile(key.file, "utf8").catch((err: unknown) => {
    throw new AppError("CONFIG_INVALID", "GITHUB_PRIVATE_KEY_FILE: cannot be read", { cause: err, details: { file: key.file } });
  });
}

function warnAboutDisabledParts(config: ApiConfig, logger: Logger): void {
  if (config.REVIEWBOT_DASHBOARD_PASSWORD === undefined) {
    logger.warn("dashboard disabled: REVIEWBOT_DASHBOARD_PASSWORD is not set");
  }
  if (config.REVIEWBOT_WORKERS_FILE === undefined) {
    logger.warn("worker routes disabled: REVIEWBOT_WORKERS_FILE is not set, so no worker can claim or report a job");
  }
}

async function listen(api: ReturnType<typeof createApiApp>, config: ApiConfig): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const server = api.listen(config.REVIEWBOT_PORT, config.REVIEWBOT_HOST, (err?: Error) => {
      if (err === undefined) resolve(server);
      else reject(err);
    });
    // A slow client must not hold a connection open: the whole request within 30 s.
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
  });
}

/** QUIT, which waits for replies in flight; a Redis that is gone cannot answer, so disconnect after 1 s. */
async function quitRedis(connection: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 1000);
  });
  await Promise.race([connection.quit().catch(() => undefined), gone]);
  clearTimeout(timer);
  connection.disconnect();
}

/** Stops accepting connections, closes idle keep-alive ones, waits for requests in flight. */
async function stopServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  server.closeIdleConnections();
  await closed;
}

main().catch((err: unknown) => {
  const message = err instanceof AppError ? `${err.code}: ${err.message}` : String(err);
  process.stderr.write(`reviewbot api: ${message}\n`);
  process.exit(1);
});
