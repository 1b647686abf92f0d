import type { RedisClient } from "./redis-client.js";
import type { RedisKeyspace } from "./redis-keyspace.js";

/**
 * A PR paused by the `pause` command: its pushes are not reviewed until `resume`. An api-only key
 * (outside `reviewbot:pr:*` and `reviewbot:lease:*`, the only keys of ours the worker's Redis user
 * reaches: infra/redis/users.acl.template), so a worker host can neither pause nor resume a PR.
 */
function pauseKey(keys: RedisKeyspace, repositoryId: number, pullNumber: number): string {
  return `${keys.ours}:paused:${String(repositoryId)}:${String(pullNumber)}`;
}

// A PR is rarely left paused for longer: the key does not outlive a forgotten PR for ever.
const PAUSE_TTL_SECONDS = 180 * 24 * 3600;

/** Whether the automatic review of pushes to the PR is paused (the summary and the webhook ask). */
export async function isPaused(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number): Promise<boolean> {
  return (await redis.exists(pauseKey(keys, repositoryId, pullNumber))) === 1;
}

/** Pauses (`true`) or resumes (`false`) the PR's automatic reviews; idempotent either way. */
export async function setPaused(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number, paused: boolean): Promise<void> {
  if (paused) await redis.set(pauseKey(keys, repositoryId, pullNumber), "1", "EX", PAUSE_TTL_SECONDS);
  else await redis.del(pauseKey(keys, repositoryId, pullNumber));
}
