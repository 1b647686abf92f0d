import type { Redis } from "ioredis";
import { KEY_PREFIX } from "./queue-names.js";

/** BullMQ's highest priority value (2^21 - 1); lower runs first. */
const MAX_PRIORITY = 2_097_151;

function shareKey(installationId: number): string {
  return `${KEY_PREFIX}:installation:${installationId}:jobs`;
}

/**
 * Round robin across installations on open-source BullMQ (Pro's groups are not available): a job
 * gets the priority "how many jobs its installation has outstanding, itself included". The first
 * waiting job of every installation runs before the second of any, so one installation opening
 * hundreds of PRs queues behind its own backlog, not in front of everyone else's. Idempotent: a
 * job admitted twice (a retried enqueue) counts once.
 */
export async function admitToShare(redis: Redis, installationId: number, jobId: string): Promise<number> {
  const [, count] = (await redis.multi().sadd(shareKey(installationId), jobId).scard(shareKey(installationId)).exec()) ?? [];
  const outstanding = typeof count?.[1] === "number" ? count[1] : 1;
  return Math.min(Math.max(outstanding, 1), MAX_PRIORITY);
}

/** The job left the queue (finished, failed for good, or superseded): it no longer counts. */
export async function releaseShare(redis: Redis, installationId: number, jobId: string): Promise<void> {
  await redis.srem(shareKey(installationId), jobId);
}
