import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** As long as a job's claim is remembered: past any report of the job. */
const OUTAGE_TTL_MS = 2 * 24 * 3600 * 1000;

/**
 * `reviewbot:broker:model-down:<jobId>`: api-only, the broker's own record that the model endpoint
 * was unavailable (`LLM_UNAVAILABLE`: 5xx, 429, timeouts or network errors past the model client's
 * retries) for a call of the job. Only this record, never what the worker reports, makes a failed
 * AI review an outage that the api retries.
 */
export function modelDownKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:broker:model-down:${jobId}`;
}

/** Records that a model call of `jobId` found the endpoint unavailable. */
export async function recordModelDown(redis: RedisClient, keys: RedisKeyspace, jobId: string): Promise<void> {
  await redis.set(modelDownKey(keys, jobId), "1", "PX", OUTAGE_TTL_MS);
}

/** True when a model call of `jobId` found the endpoint unavailable. */
export async function modelWasDown(redis: RedisClient, keys: RedisKeyspace, jobId: string): Promise<boolean> {
  return (await redis.exists(modelDownKey(keys, jobId))) === 1;
}
