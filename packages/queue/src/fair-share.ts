import type { Redis } from "ioredis";
import { KEY_PREFIX } from "./queue-names.js";

/** BullMQ's highest priority value (2^21 - 1); lower runs first. */
const MAX_PRIORITY = 2_097_151;

function shareKey(installationId: number): string {
  return `${KEY_PREFIX}:installation:${installationId}:jobs`;
}

/**
 * Round robin across installations on open-source BullMQ (Pro's groups are not available): a new
 * job gets the priority "how many jobs its installation has outstanding, plus one". The first
 * waiting job of every installation runs before the second of any, so one installation opening
 * hundreds of PRs queues behind its own backlog, not in front of everyone else's.
 */
export async function sharePriority(redis: Redis, installationId: number): Promise<number> {
  return Math.min((await redis.scard(shareKey(installationId))) + 1, MAX_PRIORITY);
}

/**
 * Counts the job as outstanding once it is in the queue (after the add, so a crash in between
 * leaves nothing counted that will never be released). Idempotent.
 */
export async function joinShare(redis: Redis, installationId: number, jobId: string): Promise<void> {
  await redis.sadd(shareKey(installationId), jobId);
}

/** The job left the queue (finished, failed for good, or superseded): it no longer counts. */
export async function releaseShare(redis: Redis, installationId: number, jobId: string): Promise<void> {
  await redis.srem(shareKey(installationId), jobId);
}
