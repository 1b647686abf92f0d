import type { Queue } from "bullmq";
import { AppError } from "@reviewbot/core/errors";
import type { RedisClient } from "./redis-client.js";
import { joinShare, sharePriority } from "./fair-share.js";
import { openLiveJob } from "./live-job-record.js";
import type { QueueSeal } from "./queue-seal.js";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { REVIEW_JOB_OPTIONS, reviewJobId } from "./review-queue.js";
import { ReviewJob } from "@reviewbot/contracts/review-job";

/**
 * Enqueues a job that answers a reply (`reply` set; validated here, where it is written), sealed
 * and recorded as live like a review and in the installation's fair share, but outside the PR's review bookkeeping: it
 * records no head, supersedes nothing and is superseded by nothing (a push does not make a
 * question go unanswered).
 */
export async function enqueueAnswer(
  queue: Queue,
  redis: RedisClient,
  keys: RedisKeyspace,
  seal: QueueSeal,
  input: ReviewJob,
): Promise<{ readonly jobId: string }> {
  const job = ReviewJob.parse(input);
  if (job.reply === null) throw new AppError("JOB_INVALID", "an answer job needs the reply it answers");
  const jobId = reviewJobId(job);
  const priority = await sharePriority(redis, keys, job.installationId);
  await openLiveJob(redis, keys, jobId, job);
  await queue.add("answer", seal.seal(jobId, job), { ...REVIEW_JOB_OPTIONS, jobId, priority });
  await joinShare(redis, keys, job.installationId, jobId);
  return { jobId };
}
