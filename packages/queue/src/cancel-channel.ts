import type { RedisClient } from "./redis-client.js";
import type { RedisKeyspace } from "./redis-keyspace.js";

/** Pub/sub channel on which the API asks every worker host to cancel a running review. */
function cancelChannel(keys: RedisKeyspace): string {
  return `${keys.ours}:cancel`;
}

/**
 * Asks whichever worker runs `jobId` to cancel it. Pub/sub is fire-and-forget: a worker that misses
 * the message still finds the job superseded when it checks the PR's latest head before publishing.
 */
export async function requestCancel(redis: RedisClient, keys: RedisKeyspace, jobId: string): Promise<void> {
  await redis.publish(cancelChannel(keys), jobId);
}

/**
 * Calls `onCancel(jobId)` for every cancel request. `subscriber` must be a connection of its own
 * (a subscribed ioredis connection can run no other command). Returns the unsubscribe function.
 */
export async function subscribeCancels(subscriber: RedisClient, keys: RedisKeyspace, onCancel: (jobId: string) => void): Promise<() => Promise<void>> {
  const channelName = cancelChannel(keys);
  const listener = (channel: string, message: string): void => {
    if (channel === channelName) onCancel(message);
  };
  subscriber.on("message", listener);
  await subscriber.subscribe(channelName);
  return async () => {
    subscriber.off("message", listener);
    await subscriber.unsubscribe(channelName);
  };
}
