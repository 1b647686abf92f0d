import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "@reviewbot/core/errors";
import type { RedisClient } from "@reviewbot/queue/redis-client";

export interface RedisLockOptions {
  /** The lock expires after this long, so a crashed holder cannot block others for good. */
  readonly ttlMs: number;
  /** How long to wait for the lock before failing with a retryable error. */
  readonly waitMs: number;
}

// Delete the key only if it still holds our token: never release a lock someone else took after ours expired.
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/**
 * Runs `task` while holding a short Redis lock (`SET NX PX` with a random token), shared by every
 * process: used where two api processes must not both create something on GitHub (a check run,
 * a review). Fails with `GITHUB_API_FAILED` (retryable) when the lock stays taken.
 */
export async function withRedisLock<T>(redis: RedisClient, key: string, options: RedisLockOptions, task: () => Promise<T>): Promise<T> {
  const token = randomUUID();
  const deadline = Date.now() + options.waitMs;
  while ((await redis.set(key, token, "PX", options.ttlMs, "NX")) !== "OK") {
    if (Date.now() > deadline) {
      throw new AppError("GITHUB_API_FAILED", "another process holds the publish lock", { details: { key } });
    }
    await sleep(25 + Math.floor(Math.random() * 50));
  }
  try {
    return await task();
  } finally {
    await redis.eval(RELEASE, 1, key, token);
  }
}
