import type { Queue } from "bullmq";
import type { RedisClient } from "./redis-client.js";
import { MAX_AI_ATTEMPTS, ReviewJob } from "@reviewbot/contracts/review-job";
import { joinShare } from "./fair-share.js";
import { openLiveJob } from "./live-job-record.js";
import type { QueueSeal } from "./queue-seal.js";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { recordLatestHead } from "./pull-request-state.js";
import { REVIEW_JOB_OPTIONS, reviewJobId } from "./review-queue.js";

/**
 * Enqueues, after `delayMs`, a retry of the AI review alone (`mode: ai-only`, attempt `attempt`)
 * of the review `review` (the api's sealed job of the whole review). The retry is recorded as the
 * PR's live job, so a newer push removes it while it waits and cancels it while it runs, like any
 * review job; a PR whose head moved on meanwhile gets no retry (null). Sealed and recorded as
 * live like every job the api writes ({@link openLiveJob}); its id is deterministic, so scheduling the same attempt twice is one job.
 */
export async function enqueueAiRetry(
  queue: Queue,
  redis: RedisClient,
  keys: RedisKeyspace,
  seal: QueueSeal,
  review: ReviewJob,
  attempt: number,
  delayMs: number,
): Promise<string | null> {
  if (attempt < 1 || attempt > MAX_AI_ATTEMPTS) throw new RangeError(`AI retry attempt ${attempt} is outside 1..${MAX_AI_ATTEMPTS}`);
  const job = ReviewJob.parse({ ...review, mode: "ai-only", aiAttempt: attempt });
  const jobId = reviewJobId(job);
  const head = await recordLatestHead(redis, keys, job, jobId);
  if (head.kind === "stale") return null;
  await openLiveJob(redis, keys, jobId, job);
  await queue.add("review", seal.seal(jobId, job), { ...REVIEW_JOB_OPTIONS, jobId, delay: delayMs });
  await joinShare(redis, keys, job.installationId, jobId);
  return jobId;
}
