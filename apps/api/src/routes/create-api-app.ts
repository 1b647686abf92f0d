import type { Queue } from "bullmq";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { JOB_AI_CACHE_PATH, JOB_CLAIM_PATH, JOB_FETCH_PATH, JOB_MODEL_PATH, JOB_REPORT_PATH } from "@reviewbot/contracts/worker-protocol";
import express, { type ErrorRequestHandler, type Express } from "express";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { ApiMetrics } from "../api-metrics.js";
import type { BasicCredentials } from "../http-kit/basic-auth.js";
import {
  DEFAULT_WEBHOOK_BODY_DEADLINE_MS,
  DEFAULT_WEBHOOK_CONCURRENT_READS,
  DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND,
  DEFAULT_WEBHOOK_READS_PER_SOURCE,
} from "../webhooks/body-read-slots.js";
import { dashboardDisabled, dashboardRouter } from "./dashboard-router.js";
import type { DeliveryFilter } from "../webhooks/decide-delivery.js";
import { healthHandler, readyHandler } from "./health-handlers.js";
import { rejectRequest } from "../http-kit/reject-request.js";
import { sendError } from "../http-kit/send-error.js";
import { aiCacheHandler } from "../broker/ai-cache-handler.js";
import type { AiRetrySettings } from "../broker/ai-retry.js";
import { claimHandler, type ClaimDeps, type TokenMinter } from "../broker/claim-handler.js";
import { fetchHandler } from "../broker/fetch-handler.js";
import type { ModelBroker } from "../broker/model-broker.js";
import { modelHandler } from "../broker/model-handler.js";
import type { InstallationSlots } from "../broker/installation-slots.js";
import { reportHandler } from "../broker/report-handler.js";
import type { TokenVault } from "../broker/token-vault.js";
import type { WorkerRegistry } from "../broker/worker-registry.js";
import type { ReplicaQuorum } from "../webhooks/replica-quorum.js";
import { webhookHandler } from "../webhooks/webhook-handler.js";
import { timeWebhook } from "../webhooks/webhook-latency.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** Probot's path, so an App configured for Probot needs no change. */
export const WEBHOOK_PATH = "/api/github/webhooks";

/** How long Redis may take to confirm a delivery: GitHub waits 10 s, so answer well before. */
export const DEFAULT_ENQUEUE_DEADLINE_MS = 3000;

export interface ApiDeps {
  readonly webhook: {
    readonly secret: string;
    readonly maxBytes: number;
    /** Webhook bodies read at once (default {@link DEFAULT_WEBHOOK_CONCURRENT_READS}). */
    readonly maxConcurrentReads?: number;
    /** Reads plus waits one address may have at once (default {@link DEFAULT_WEBHOOK_READS_PER_SOURCE}). */
    readonly readsPerSource?: number;
    /** A body's deadline (default {@link DEFAULT_WEBHOOK_BODY_DEADLINE_MS}) and minimum rate (default {@link DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND}). */
    readonly bodyDeadlineMs?: number;
    readonly minBytesPerSecond?: number;
    readonly filter: Omit<DeliveryFilter, "appSlug">;
    /** Our App's slug, for commands (asked of GitHub once); absent or null: only the review command. */
    readonly appSlug?: (() => Promise<string>) | null;
    readonly enqueueDeadlineMs?: number;
    /** WAIT for replicas before a 202 (webhooks/replica-quorum.ts); absent or null: no WAIT. */
    readonly replicas?: ReplicaQuorum | null;
  };
  readonly queues: { readonly reviews: Queue; readonly github: Queue };
  /** Seals what the api writes to the queues and recognises it when a worker names it. */
  readonly seal: QueueSeal;
  /** The fail-fast (non-blocking) connection: ledger, PR state, readiness. */
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  readonly scrubber: SecretScrubber;
  /** The worker routes (claim, report); null when no worker registry is configured: they answer 404. */
  readonly workers: {
    readonly registry: WorkerRegistry;
    /** Null without a GitHub App (local sink): claims carry no token. */
    readonly tokens: { readonly mint: TokenMinter; readonly vault: TokenVault; readonly ttlMs: number } | null;
    /** Reads a PR's title and description for the model (the GitHub App); null without one. */
    readonly describe: ClaimDeps["describe"];
    /** Reads the thread a job answers (the GitHub App); null without one. */
    readonly thread: ClaimDeps["thread"];
    /** The per-installation concurrency cap, checked at claim time. */
    readonly slots: InstallationSlots;
    readonly maxReportBytes: number;
    /** How often, and when, an AI review that met an unavailable model endpoint is retried alone. */
    readonly aiRetry: AiRetrySettings;
    /** The model broker; null when no model is configured: the model, fetch and AI-cache routes answer 404. */
    readonly model: ModelBroker | null;
  } | null;
  /** Null when no dashboard password is configured: the dashboard is off, never open. */
  readonly dashboard: BasicCredentials | null;
  /**
   * The proxies whose `X-Forwarded-For` names the client (Express's `trust proxy`: addresses, CIDR
   * ranges or `loopback`, `linklocal`, `uniquelocal`); none by default, so the socket's address is
   * the client and a forwarded header anyone can write is ignored.
   */
  readonly trustProxy?: readonly string[];
}

/** The API's HTTP application, built from its dependencies; the caller decides where it listens. */
export function createApiApp(deps: ApiDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("trust proxy", deps.trustProxy === undefined || deps.trustProxy.length === 0 ? false : [...deps.trustProxy]);
  const { reviews, github } = deps.queues;
  const { bodyDeadlineMs, minBytesPerSecond, replicas, ...webhook } = deps.webhook;
  app.post(
    WEBHOOK_PATH,
    timeWebhook(deps.metrics.webhookSeconds),
    webhookHandler({
      ...webhook,
      maxConcurrentReads: webhook.maxConcurrentReads ?? DEFAULT_WEBHOOK_CONCURRENT_READS,
      readsPerSource: webhook.readsPerSource ?? DEFAULT_WEBHOOK_READS_PER_SOURCE,
      appSlug: webhook.appSlug ?? null,
      pace: {
        deadlineMs: bodyDeadlineMs ?? DEFAULT_WEBHOOK_BODY_DEADLINE_MS,
        minBytesPerSecond: minBytesPerSecond ?? DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND,
      },
      deadlineMs: webhook.enqueueDeadlineMs ?? DEFAULT_ENQUEUE_DEADLINE_MS,
      queues: { reviews, github, redis: deps.redis, keys: deps.keys, seal: deps.seal, replicas: replicas ?? null },
      metrics: deps.metrics,
      logger: deps.logger,
    }),
  );
  if (deps.workers !== null) {
    const { registry, tokens, slots, maxReportBytes, aiRetry, model, describe, thread } = deps.workers;
    const common = { registry, reviews, github, redis: deps.redis, keys: deps.keys, seal: deps.seal, slots, logger: deps.logger };
    const ai = model === null ? null : { ...model.offer, fetchHosts: model.fetcher !== null };
    app.post(JOB_CLAIM_PATH, claimHandler({ ...common, tokens, scrubber: deps.scrubber, ai, describe, thread }));
    app.post(JOB_REPORT_PATH, reportHandler({ ...common, vault: tokens?.vault ?? null, maxBytes: maxReportBytes, aiRetry }));
    if (model !== null) {
      app.post(JOB_MODEL_PATH, modelHandler({ ...common, model }));
      app.post(JOB_FETCH_PATH, fetchHandler({ ...common, fetcher: model.fetcher }));
      app.post(JOB_AI_CACHE_PATH, aiCacheHandler(common));
    }
  }
  app.use("/admin", deps.dashboard === null ? dashboardDisabled : dashboardRouter([reviews, github], deps.dashboard, deps.logger));
  app.get("/metrics", async (_request, response) => {
    response.setHeader("Content-Type", deps.metrics.registry.contentType);
    response.setHeader("Cache-Control", "no-store");
    response.send(await deps.metrics.registry.metrics());
  });
  app.get("/healthz", healthHandler);
  app.get("/readyz", readyHandler(deps.redis, deps.keys));
  app.use((_request, response) => {
    sendError(response, new AppError("NOT_FOUND", "no such route"));
  });
  app.use(errorHandler(deps.logger));
  return app;
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, request, response, next) => {
    const answered = response.headersSent;
    rejectRequest(response, err, { logger, fields: { method: request.method, path: request.path }, refused: "request failed" });
    // Headers already sent: only Express's default handler can end the response (it closes it).
    if (answered) next(err);
  };
}
