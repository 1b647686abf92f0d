import { createHash } from "node:crypto";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** How long a delivery id and a body are remembered: GitHub lets operators redeliver for 30 days. */
export const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;

/** `reviewbot:delivery:<id>`: the ledger entry of one X-GitHub-Delivery. */
export function deliveryKey(keys: RedisKeyspace, deliveryId: string): string {
  return `${keys.ours}:delivery:${deliveryId}`;
}

/** `reviewbot:delivery-body:<sha256>`: which delivery id first presented a signed body. */
export function bodyKey(keys: RedisKeyspace, digest: string): string {
  return `${keys.ours}:delivery-body:${digest}`;
}

/** The SHA-256 of a delivery's raw bytes, as hex: what the signature covers, unlike the id. */
export function bodyDigest(rawBody: Buffer): string {
  return createHash("sha256").update(rawBody).digest("hex");
}

/**
 * `new`: never seen, go on; `duplicate`: this delivery id was accepted before (GitHub's redelivery
 * keeps the id and the body); `replayed`: the same signed body came before under another id.
 */
export type DeliveryClaim = "new" | "duplicate" | "replayed";

// The body is claimed for its delivery id before anything is enqueued, atomically, so two copies
// under different ids cannot both pass. A copy under the claiming id passes again: after a crash
// between the claim and the enqueue, GitHub's redelivery (same id) must still be served.
const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'duplicate' end
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then return 'replayed' end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
return 'new'`;

/**
 * Checks a delivery against the ledger and claims its body for its id. The delivery id is not
 * covered by GitHub's signature, so a captured delivery sent again under a fresh id is only
 * recognised by its bytes.
 */
export async function claimDelivery(redis: RedisClient, keys: RedisKeyspace, deliveryId: string, digest: string): Promise<DeliveryClaim> {
  const claim = await redis.eval(CLAIM_SCRIPT, 2, deliveryKey(keys, deliveryId), bodyKey(keys, digest), deliveryId, DELIVERY_TTL_SECONDS);
  if (claim === "new" || claim === "duplicate" || claim === "replayed") return claim;
  throw new Error(`unexpected ledger reply ${String(claim)}`);
}

/**
 * Records an accepted delivery and what it became (a job id, or why nothing was enqueued). Written
 * after the enqueue, so a crash between the two leaves no entry and a redelivery is enqueued again
 * (onto the same job id). Returns false when a concurrent copy of the delivery recorded it first.
 */
export async function recordDelivery(redis: RedisClient, keys: RedisKeyspace, deliveryId: string, outcome: string): Promise<boolean> {
  return (await redis.set(deliveryKey(keys, deliveryId), outcome, "EX", DELIVERY_TTL_SECONDS, "NX")) === "OK";
}
