import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import { describePullRequest } from "@reviewbot/github/describe-pull-request";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { readReplyThread } from "@reviewbot/github/read-reply-thread";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import { toLlmSettings } from "@reviewbot/llm/llm-settings";
import type { ApiConfig } from "../api-config.js";
import type { TokenMinter } from "../broker/claim-handler.js";
import { createModelBroker } from "../broker/model-broker.js";
import type { ModelUsageMetrics } from "../model-usage-metrics.js";
import type { ApiDeps } from "../routes/create-api-app.js";
import type { Broker } from "./build-broker.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface WorkerRoutesDeps {
  /** Null with the local sink: no tokens, no PR description, no reply threads. */
  readonly app: GitHubApp | null;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly scrubber: SecretScrubber;
  readonly usage: ModelUsageMetrics;
}

/**
 * What the worker routes get: the broker's parts, the GitHub App's token minting and reads, and
 * the model broker (its key registered with the scrubber here). Null without a worker registry:
 * the routes answer 404, and no model client is made.
 */
export function buildWorkerRoutes(config: ApiConfig, broker: Broker, deps: WorkerRoutesDeps): ApiDeps["workers"] {
  const { app, redis, keys, scrubber, usage } = deps;
  const { registry, vault, slots } = broker;
  if (registry === null) return null;
  const mint: TokenMinter | null = app === null ? null : (installationId, repositoryId) => mintRepositoryToken(app, installationId, repositoryId);
  return {
    registry,
    tokens: mint === null || vault === null ? null : { mint, vault, ttlMs: config.REVIEWBOT_JOB_TOKEN_TTL_MS },
    slots,
    maxReportBytes: config.REVIEWBOT_REPORT_MAX_BYTES,
    aiRetry: { attempts: config.REVIEWBOT_AI_RETRY_ATTEMPTS, delayMs: config.REVIEWBOT_AI_RETRY_DELAY_MS },
    model: createModelBroker(toLlmSettings(config), { redis, keys, scrubber, usage, installationCalls: config.REVIEWBOT_LLM_INSTALLATION_CONCURRENCY }),
    describe: app === null ? null : async (job) => describePullRequest(await app.getInstallationOctokit(job.installationId), job.repository, job.pullNumber),
    // Which comments of the thread are ours: the api's record of what it posted on the PR.
    thread:
      app === null
        ? null
        : async (job) => {
            if (job.reply === null) return null;
            const { comments } = await readReviewMemory(redis, keys, job.repositoryId, job.pullNumber);
            return readReplyThread(await app.getInstallationOctokit(job.installationId), job, job.reply, (id) => comments.includes(id));
          },
  };
}
