import { readFile } from "node:fs/promises";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { appSlugOf } from "@reviewbot/github/app-identity";
import { createGitHubApp, type GitHubApp } from "@reviewbot/github/create-github-app";
import { createGitHubSink } from "@reviewbot/github/github-sink";
import type { ReviewSink } from "@reviewbot/queue/review-sink";
import { helperCommentsOn, type ApiConfig } from "../api-config.js";
import type { ApiMetrics } from "../api-metrics.js";
import { createLocalSink } from "../publisher/local-sink.js";
import { summaryExtrasOf } from "./summary-extras.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface SinkDeps {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
  readonly metrics: ApiMetrics;
}

/** The configured sink, and the GitHub App behind it (none for the local sink). */
export async function openSink(config: ApiConfig, deps: SinkDeps): Promise<{ app: GitHubApp | null; sink: ReviewSink }> {
  if (config.sink.kind === "local") return { app: null, sink: createLocalSink(config.sink.dir) };
  const app = await gitHubApp(config.sink, config.GITHUB_API_URL, deps);
  const { redis, keys, logger, scrubber } = deps;
  return {
    app,
    sink: createGitHubSink({
      app,
      appId: config.sink.appId,
      redis,
      keys,
      logger,
      scrubber,
      reviewComments: helperCommentsOn(config),
      minInlineSeverity: config.REVIEWBOT_MIN_INLINE_SEVERITY,
      trustedAssociations: config.REVIEWBOT_COMMAND_ASSOCIATIONS,
      summaryExtras: summaryExtrasOf(redis, keys, appSlugOf(app, config.sink.appId)),
    }),
  };
}

async function gitHubApp(sink: Extract<ApiConfig["sink"], { kind: "github" }>, baseUrl: string, deps: SinkDeps): Promise<GitHubApp> {
  const privateKey = await readPrivateKey(sink.privateKey);
  deps.scrubber.register(privateKey);
  return createGitHubApp({
    appId: sink.appId,
    privateKey,
    baseUrl,
    redis: deps.redis,
    keys: deps.keys,
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
