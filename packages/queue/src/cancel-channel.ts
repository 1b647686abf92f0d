import type { Redis } from "ioredis";
import { KEY_PREFIX } from "./queue-names.js";

/** Pub/sub channel on which the API asks every worker host to cancel a running review. */
export const CANCEL_CHANNEL = `${KEY_PREFIX}:cancel`;

/**
 * Asks whichever worker runs `jobId` to cancel it. Pub/sub is fire-and-forget: a worker that misses
 * the message still finds the job superseded when it checks the PR's latest head before publishing.
 */
export async function requestCancel(redis: Redis, jobId: string): Promise<void> {
  await redis.publish(CANCEL_CHANNEL, jobId);
}

/**
 * Calls `onCancel(jobId)` for every cancel request. `subscriber` must be a connection of its own
 * (a subscribed ioredis connection can run no other command). Returns the unsubscribe function.
 */
export async function subscribeCancels(subscriber: Redis, onCancel: (jobId: string) => void): Promise<() => Promise<void>> {
  const listener = (channel: string, message: string): void => {
    if (channel === CANCEL_CHANNEL) onCancel(message);
  };
  subscriber.on("message", listener);
  await subscriber.subscribe(CANCEL_CHANNEL);
  return async () => {
    subscriber.off("message", listener);
    await subscriber.unsubscribe(CANCEL_CHANNEL);
  };
}
