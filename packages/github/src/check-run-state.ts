import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";

/** What reviewbot remembers about the check run of one review job, shared by every api process. */
export interface CheckRunState {
  readonly id: number | null;
  readonly status: "in_progress" | "completed" | null;
  /** Annotation batches of `jobId`'s result already sent. */
  readonly batches: number;
}

/** State lives a week: long enough for any retry, short enough not to pile up. */
const STATE_TTL_SECONDS = 7 * 24 * 3600;

export function checkRunStateKey(keys: RedisKeyspace, repositoryId: number, reviewJobId: string): string {
  return `${keys.ours}:check-run:${repositoryId}:${reviewJobId}`;
}

/** Reads the state hash; a missing hash is the empty state. */
export async function readCheckRunState(redis: RedisClient, key: string): Promise<CheckRunState> {
  const hash = await redis.hgetall(key);
  const id = Number(hash.id);
  return {
    id: Number.isSafeInteger(id) && id > 0 ? id : null,
    status: hash.status === "in_progress" || hash.status === "completed" ? hash.status : null,
    batches: Number(hash.batches ?? 0) || 0,
  };
}

/** Writes some fields of the state hash and renews its expiry. */
export async function writeCheckRunState(redis: RedisClient, key: string, fields: Record<string, string | number>): Promise<void> {
  await redis.multi().hset(key, fields).expire(key, STATE_TTL_SECONDS).exec();
}
