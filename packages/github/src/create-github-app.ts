import { App } from "@octokit/app";
import { Octokit } from "@octokit/core";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { createRedisTokenCache } from "./create-redis-token-cache.js";
import { requestHooksPlugin } from "./request-hooks-plugin.js";

export type GitHubApp = App;
export type RateLimitKind = "primary" | "secondary";

export interface GitHubAppOptions {
  readonly appId: number;
  readonly privateKey: string;
  /** GITHUB_API_URL: https://api.github.com, a GHES `/api/v3` URL, or a test stand-in. */
  readonly baseUrl: string;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
  /** Spacing of an installation's POST/PATCH/PUT/DELETE requests across processes; default 1000. */
  readonly paceMs?: number;
  /** Rate-limited requests are retried this often, and only when told to wait at most `maxRateLimitWaitSeconds`. */
  readonly rateLimitRetries?: number;
  readonly maxRateLimitWaitSeconds?: number;
  /** plugin-retry's backoff unit for 5xx: waits of 1, 4, 9 units over its 3 retries; default 1000 ms. */
  readonly serverErrorRetryBaseMs?: number;
  /** Token-cache entries expire this long before the token; default 5 minutes. */
  readonly tokenCacheMarginMs?: number;
  readonly onRequest?: (route: string, status: number) => void;
  readonly onRateLimitWait?: (seconds: number, kind: RateLimitKind) => void;
  /** Milliseconds a content-creating request waited for its installation's pace slot. */
  readonly onPaceWait?: (milliseconds: number) => void;
}

// plugin-throttling's own write/notification limiters pace per process, in memory; the Redis pace
// slot replaces them across processes, so they are made pass-through.
const passThrough = { key: () => ({ schedule: (_options: unknown, task: (...args: unknown[]) => unknown, ...args: unknown[]) => task(...args) }) };

/**
 * Builds the GitHub App client: installation tokens cached (sealed) in Redis and shared by every
 * process, registered with the scrubber when minted; primary and secondary rate limits honoured
 * (Retry-After, a bounded number of retries); 5xx retried with backoff; content creation paced per
 * installation through Redis; every attempt counted through `onRequest`.
 */
export function createGitHubApp(options: GitHubAppOptions): GitHubApp {
  const cache = createRedisTokenCache({
    redis: options.redis,
    keys: options.keys,
    scrubber: options.scrubber,
    secret: options.privateKey,
    ...(options.tokenCacheMarginMs === undefined ? {} : { marginMs: options.tokenCacheMarginMs }),
  });
  const retries = options.rateLimitRetries ?? 2;
  const maxWait = options.maxRateLimitWaitSeconds ?? 60;
  const onLimit = (kind: RateLimitKind) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    const retrying = retryCount < retries && retryAfter <= maxWait;
    options.logger.warn({ kind, retryAfter, retryCount, retrying, route: `${request.method} ${request.url}` }, "github rate limit");
    if (retrying) options.onRateLimitWait?.(retryAfter, kind);
    return retrying;
  };
  const log = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => {
      options.logger.warn({ detail: options.scrubber.scrub(message) }, "octokit warning");
    },
    error: (message: string) => {
      options.logger.error({ detail: options.scrubber.scrub(message) }, "octokit error");
    },
  };
  const ReviewbotOctokit = Octokit.plugin(
    requestHooksPlugin({
      redis: options.redis,
      keys: options.keys,
      paceMs: options.paceMs ?? 1000,
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
      ...(options.onPaceWait ? { onPaceWait: options.onPaceWait } : {}),
    }),
    throttling,
    retry,
  ).defaults((octokitOptions: Record<string, unknown>) => ({
    ...octokitOptions,
    baseUrl: options.baseUrl,
    log,
    // App passes only appId and privateKey to auth-app; the cache rides in through the Octokit
    // defaults, which also reach the installation Octokits getInstallationOctokit creates.
    auth: { ...(octokitOptions.auth as object | undefined), cache },
    throttle: {
      id: `reviewbot-${options.appId}`,
      write: passThrough,
      notifications: passThrough,
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary"),
    },
    // 429 is left to plugin-throttling (GitHub's 429s are rate limits with Retry-After).
    retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451], retryAfterBaseValue: options.serverErrorRetryBaseMs ?? 1000 },
  }));
  return new App({ appId: options.appId, privateKey: options.privateKey, Octokit: ReviewbotOctokit, log });
}
