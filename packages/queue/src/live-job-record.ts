import type { RedisClient } from "./redis-client.js";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { REVIEW_JOB_MAX_AGE_MS } from "./review-queue.js";

/**
 * The api's own record that a review job it enqueued is live (docs/architecture.md, layer 4:
 * workers are untrusted clients of the api). A worker's Redis user can write every key of the
 * review queue, so a sealed job it saved can be put back after it ended, was removed or superseded;
 * the seal still holds, the record does not: it is written before the job is added, under an
 * api-only key, and ended when the outcome is recorded, when the api removes the job, and when the
 * sweeper finds the job gone. It also lapses {@link REVIEW_JOB_MAX_AGE_MS} after it was written.
 * It says why the job exists (`trigger`): a `/review` command or a re-run is the api's own decision
 * to review a head again, recorded as such.
 */
export async function openLiveJob(redis: RedisClient, keys: RedisKeyspace, jobId: string, job: Pick<ReviewJob, "trigger">): Promise<void> {
  await redis.eval(OPEN_SCRIPT, 1, liveJobKey(keys, jobId), job.trigger, REVIEW_JOB_MAX_AGE_MS);
}

// One script, not MULTI: ioredis builds a pipeline by copying every script BullMQ defined on the
// connection onto it, which the accept path's profile showed among the api's costliest steps per
// delivery (issue 25, part 5). Atomic all the same: no record is left without its expiry.
const OPEN_SCRIPT = `redis.call('HSET', KEYS[1], 'trigger', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

/** Ends the record of each job: nothing the api acts for any more. Idempotent. */
export async function endLiveJobs(redis: RedisClient, keys: RedisKeyspace, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length > 0) await redis.del(...jobIds.map((jobId) => liveJobKey(keys, jobId)));
}

/** `reviewbot:broker:job:<jobId>`: api-only (infra/redis/users.acl.template), present while the job is live. */
export function liveJobKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:broker:job:${jobId}`;
}
