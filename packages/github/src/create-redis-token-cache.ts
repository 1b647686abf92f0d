import { SealedBox } from "@reviewbot/core/sealed-box";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";

/** The cache interface `@octokit/auth-app` accepts (its `cache` option). */
export interface TokenCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

export interface RedisTokenCacheOptions {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly scrubber: SecretScrubber;
  /** Key material only the publisher holds (the App private key); never stored. */
  readonly secret: string;
  /** Entries expire this long before the token does, so a token is renewed before it lapses. */
  readonly marginMs?: number;
}

export const DEFAULT_TOKEN_CACHE_MARGIN_MS = 5 * 60_000;

/**
 * An installation-token cache in Redis, shared by every api process, in the format auth-app writes
 * (`token|createdAt|expiresAt|…`). Values are sealed with AES-256-GCM under a key derived from the
 * App private key, bound to their cache key: workers share this Redis but hold no App key
 * (docs/architecture.md, layer 4: workers are untrusted clients of the api), so a compromised
 * worker reading Redis gets no write-capable token. Every token seen here — minted now or by
 * another process — is registered with the scrubber.
 */
export function createRedisTokenCache(options: RedisTokenCacheOptions): TokenCache {
  const box = new SealedBox(options.secret, "token-cache-v1");
  const margin = options.marginMs ?? DEFAULT_TOKEN_CACHE_MARGIN_MS;
  const redisKey = (cacheKey: string): string => `${options.keys.ours}:token-cache:${cacheKey}`;
  const register = (value: string): void => {
    options.scrubber.register(value.split("|")[0] ?? "");
  };
  return {
    async get(cacheKey) {
      const sealed = await options.redis.get(redisKey(cacheKey));
      if (sealed === null) return undefined;
      const value = box.open(cacheKey, sealed);
      // A value that does not open (tampered, or sealed under another App key) is a cache miss.
      if (value !== undefined) register(value);
      return value;
    },
    async set(cacheKey, value) {
      register(value);
      const expiresAt = Date.parse(value.split("|")[2] ?? "");
      const ttl = Number.isNaN(expiresAt) ? 0 : expiresAt - Date.now() - margin;
      if (ttl <= 0) return;
      await options.redis.set(redisKey(cacheKey), box.seal(cacheKey, value), "PX", ttl);
    },
  };
}
