import type { Queue } from "bullmq";
import { type RedisClient, serverHolding } from "./redis-client.js";
import { endLiveJobs } from "./live-job-record.js";
import type { RedisKeyspace } from "./redis-keyspace.js";

/** BullMQ's highest priority value (2^21 - 1); lower runs first. */
const MAX_PRIORITY = 2_097_151;

function shareKey(keys: RedisKeyspace, installationId: number): string {
  return `${keys.ours}:installation:${installationId}:jobs`;
}

/**
 * Round robin across installations on open-source BullMQ (Pro's groups are not available): a new
 * job gets the priority "how many jobs its installation has outstanding, plus one". The first
 * waiting job of every installation runs before the second of any, so one installation opening
 * hundreds of PRs queues behind its own backlog, not in front of everyone else's.
 */
export async function sharePriority(redis: RedisClient, keys: RedisKeyspace, installationId: number): Promise<number> {
  return Math.min((await redis.scard(shareKey(keys, installationId))) + 1, MAX_PRIORITY);
}

/**
 * Counts the job as outstanding once it is in the queue (after the add, so a crash in between
 * leaves nothing counted that will never be released). Idempotent.
 */
export async function joinShare(redis: RedisClient, keys: RedisKeyspace, installationId: number, jobId: string): Promise<void> {
  await redis.sadd(shareKey(keys, installationId), jobId);
}

/** The job left the queue (finished, failed for good, or superseded): it no longer counts. */
export async function releaseShare(redis: RedisClient, keys: RedisKeyspace, installationId: number, jobId: string): Promise<void> {
  await redis.srem(shareKey(keys, installationId), jobId);
}

/** Where a sweep of the fair-share sets stopped: the keyspace cursor, keys found and not yet read, and the set cursor of the first. */
export interface ShareSweepCursor {
  keys: string;
  pending: string[];
  members: string;
}

/** A cursor at the start of the keyspace. */
export function newShareSweepCursor(): ShareSweepCursor {
  return { keys: "0", pending: [], members: "0" };
}

/**
 * Releases the fair-share entries of jobs that ended without anyone releasing them: a
 * job that failed by stalling, whose worker died for good, that failed before it could report, or
 * that was removed. Such an entry would otherwise lower its installation's priority for ever.
 * An entry goes when its job is gone, completed or failed, and with it the api's record of the job
 * as live; waiting, delayed and active jobs keep theirs. Bounded work: at most `budget` entries and
 * a few SCAN pages per call, going on from `cursor` (which it advances) so that successive calls
 * cover every set; `redis` must be allowed to SCAN and to read the queue's keys (the api's user).
 * In a Cluster the SCAN goes to the primary holding the keyspace's hash tag, where every set is (a
 * Cluster sends a command naming no key to any primary); while the slots are not known, nothing is swept.
 */
export async function sweepShares(
  redis: RedisClient,
  keys: RedisKeyspace,
  queue: Queue,
  cursor: ShareSweepCursor,
  budget: number,
): Promise<{ checked: number; released: number }> {
  let checked = 0;
  let released = 0;
  let scans = 0;
  while (checked < budget) {
    const key = cursor.pending[0];
    if (key === undefined) {
      // One pass over the keyspace per call at most, a few pages of it.
      const holder = serverHolding(redis, keys.ours);
      if (holder === undefined || scans >= 4 || (scans > 0 && cursor.keys === "0")) break;
      const [next, found] = await holder.scan(cursor.keys, "MATCH", `${keys.ours}:installation:*:jobs`, "COUNT", 1000);
      scans += 1;
      cursor.keys = next;
      cursor.pending.push(...found);
      cursor.members = "0";
      continue;
    }
    const [next, members] = await redis.sscan(key, cursor.members, "COUNT", Math.min(100, budget - checked));
    const ended = await endedJobs(redis, queue, members);
    if (ended.length > 0) {
      // A job gone, completed or failed is live no more: a copy a worker puts back is not acted on.
      await endLiveJobs(redis, keys, ended);
      await redis.srem(key, ...ended);
    }
    checked += members.length;
    released += ended.length;
    cursor.members = next;
    if (next === "0") cursor.pending.shift();
  }
  return { checked, released };
}

async function endedJobs(redis: RedisClient, queue: Queue, jobIds: readonly string[]): Promise<string[]> {
  if (jobIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const jobId of jobIds) {
    pipeline.exists(queue.toKey(jobId));
    pipeline.zscore(queue.toKey("completed"), jobId);
    pipeline.zscore(queue.toKey("failed"), jobId);
  }
  const replies = (await pipeline.exec()) ?? [];
  return jobIds.filter((_jobId, index) => {
    const [exists, completed, failed] = [0, 1, 2].map((offset) => {
      const [err, value] = replies[index * 3 + offset] ?? [null, null];
      if (err !== null) throw err;
      return value;
    });
    return exists === 0 || completed !== null || failed !== null;
  });
}
