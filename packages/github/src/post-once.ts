import type { RedisClient } from "@reviewbot/queue/redis-client";
import { withRedisLock } from "./with-redis-lock.js";

const POSTED_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Runs `post` at most once for `postedKey`, shared by every api process: when Redis remembers it,
 * its answer is returned; otherwise `post` runs under `lockKey` (after looking again, inside) and
 * its answer is remembered for 30 days. `post` answers the id of what exists on GitHub (posted now,
 * or found there), or 0 when GitHub refused it for good; that comes back as null.
 */
export async function postOnce(
  redis: RedisClient,
  keys: { readonly postedKey: string; readonly lockKey: string },
  post: () => Promise<number>,
): Promise<number | null> {
  const remembered = async (): Promise<number | null | undefined> => {
    const value = await redis.get(keys.postedKey);
    return value === null ? undefined : Number(value) > 0 ? Number(value) : null;
  };
  const known = await remembered();
  if (known !== undefined) return known;
  return withRedisLock(redis, keys.lockKey, { ttlMs: 30_000, waitMs: 45_000 }, async () => {
    const again = await remembered();
    if (again !== undefined) return again;
    const id = await post();
    await redis.set(keys.postedKey, String(id), "EX", POSTED_TTL_SECONDS);
    return id > 0 ? id : null;
  });
}
