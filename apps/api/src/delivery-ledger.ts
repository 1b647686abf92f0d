import type { Redis } from "ioredis";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";

/** How long a delivery id is remembered: GitHub lets operators redeliver for 30 days. */
export const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;

/** `reviewbot:delivery:<id>`: the ledger entry of one X-GitHub-Delivery. */
export function deliveryKey(deliveryId: string): string {
  return `${KEY_PREFIX}:delivery:${deliveryId}`;
}

/** True when the delivery was accepted before (a replay or a redelivery). */
export async function hasDelivery(redis: Redis, deliveryId: string): Promise<boolean> {
  return (await redis.exists(deliveryKey(deliveryId))) === 1;
}

/**
 * Records an accepted delivery and what it became. Written after the enqueue, so a crash between
 * the two leaves no entry and a redelivery is enqueued again (onto the same job id). Returns
 * false when a concurrent copy of the delivery recorded it first.
 */
export async function recordDelivery(redis: Redis, deliveryId: string, jobId: string): Promise<boolean> {
  return (await redis.set(deliveryKey(deliveryId), jobId, "EX", DELIVERY_TTL_SECONDS, "NX")) === "OK";
}
