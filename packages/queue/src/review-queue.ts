import type { DefaultJobOptions } from "bullmq";
import type { ReviewJob } from "@reviewbot/contracts/review-job";

/**
 * Retries are for infrastructure failures (engine down, git timeout, Redis blip): exponential
 * backoff from 5 s. Final errors (a bad job, a config error) skip them through `UnrecoverableError`.
 * Finished jobs stay a week for the dashboard; the delivery ledger, not the job, prevents replays.
 */
export const REVIEW_JOB_OPTIONS: DefaultJobOptions = Object.freeze({
  attempts: 5,
  backoff: { type: "exponential", delay: 5000 },
  removeOnComplete: { age: 7 * 24 * 3600, count: 5000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 5000 },
});

/**
 * The longest a review job lives, from the api's seal to its last claim: its five attempts with
 * backoff take minutes and each run is bounded by the worker's review deadline, so nearly all of it
 * is waiting for a free worker or installation slot. Two days covers a fleet that was down over a
 * long night; the api refuses a claim on a job sealed longer ago (a saved job put back later), and
 * its record of the job as live lasts as long.
 */
export const REVIEW_JOB_MAX_AGE_MS = 2 * 24 * 3600 * 1000;

/**
 * One job id per delivery: the same delivery enqueued twice (two API replicas, a retried request)
 * is one job, while a new event for the same PR is a new job that supersedes the old one.
 * BullMQ ids must not contain `:` and must not be integers.
 */
export function reviewJobId(job: Pick<ReviewJob, "repositoryId" | "pullNumber" | "deliveryId" | "mode" | "aiAttempt">): string {
  const review = `review.${job.repositoryId}.${job.pullNumber}.${job.deliveryId}`;
  // A retry of the AI review alone is a job of its own, one per attempt, named after the review it completes.
  return job.mode === "ai-only" ? `${review}.ai${job.aiAttempt ?? 0}` : review;
}
