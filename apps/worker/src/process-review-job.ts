import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { isSuperseded } from "@reviewbot/queue/pull-request-state";
import { attemptFailure } from "@reviewbot/queue/attempt-failure";
import { readReviewJob } from "@reviewbot/queue/queued-review-job";
import type { Logger } from "@reviewbot/core/logger";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { endJobOnError } from "./end-job-on-error.js";
import { jobAiReviewer } from "./job-ai-reviewer.js";
import { reportAnyway } from "./job-outcome.js";
import { runAnswer } from "./run-answer.js";
import { runReview } from "./run-review.js";
import type { ProcessDependencies } from "./process-dependencies.js";
import type { ReviewJobResult } from "./review-job-result.js";

/**
 * The BullMQ processor of a review job: skip a superseded head, take the PR's lease, claim the job
 * from the api with its lock token (the api answers with the job as it sealed it, and the
 * repository token), run the pipeline with an abort signal, and report how it ended to the api,
 * which publishes. The queued data is only read for the lease and supersession; what is reviewed is
 * the api's answer. A claim the api refuses because the job's installation runs as many reviews as
 * it allows (`INSTALLATION_BUSY`) goes back to the queue for the `Retry-After` the api gave, without
 * spending an attempt. A review past its deadline (the signal aborts with `REVIEW_TIMEOUT`) is
 * reported and failed for good. Other errors go through {@link attemptFailure}: final ones (a
 * final code, or the last attempt) are reported and become `UnrecoverableError`; retryable ones are
 * rethrown for BullMQ's backoff; a job handed back at shutdown returns to the queue at once. Each
 * failed attempt is logged once, here (BullMQ's `failed` event is not logged again).
 */
export async function processReviewJob(job: Job, lockToken: string | undefined, deps: ProcessDependencies): Promise<ReviewJobResult> {
  let queued: ReviewJob;
  try {
    queued = readReviewJob(job.data);
  } catch (err) {
    deps.metrics.countJob("invalid");
    deps.logger.warn({ jobId: job.id, err }, "review job invalid");
    throw attemptFailure(job, err).thrown;
  }
  const logger = deps.logger.child({ jobId: job.id, repo: queued.repository, pr: queued.pullNumber, headSha: queued.headSha });
  try {
    return await reviewQueuedJob(job, lockToken, queued, deps, logger);
  } catch (err) {
    // Deferred, handed back, or failed for good where that was decided (a deadline): logged there.
    if (err instanceof DelayedError || err instanceof UnrecoverableError) throw err;
    const failure = attemptFailure(job, err);
    logger.error({ err, code: failure.code, final: failure.final, attempt: failure.attempt }, "review failed");
    deps.metrics.countJob(failure.final ? "failed" : "retried");
    throw failure.thrown;
  }
}

/** The job once read: supersession, the PR's lease, the claim, then the review or the answer. */
async function reviewQueuedJob(
  job: Job,
  lockToken: string | undefined,
  queued: ReviewJob,
  deps: ProcessDependencies,
  logger: Logger,
): Promise<ReviewJobResult> {
  const jobId = job.id ?? "";
  const held = deps.jobs.hold(jobId, lockToken ?? "", logger);
  // A job that answers a reply is no review of a head: a push neither supersedes nor waits for it.
  const answering = queued.reply !== null;
  if (!answering && (await isSuperseded(deps.redis, deps.keys, queued))) {
    await reportAnyway(held, { kind: "skipped" });
    deps.metrics.countJob("superseded");
    logger.info("review superseded before it started");
    return { outcome: "superseded" };
  }
  const lease = answering ? null : new PullRequestLease(deps.redis, deps.keys, queued, jobId, deps.leaseTtlMs);
  if (lease !== null && !(await lease.acquire())) {
    deps.metrics.countJob("deferred");
    await job.moveToDelayed(Date.now() + deps.leaseRetryMs, lockToken);
    throw new DelayedError();
  }
  const { signal, finish } = deps.running.add(jobId);
  try {
    const claimed = await deps.jobs.claim(held);
    // What the job is comes from the api's sealed job, not the queued copy.
    if (claimed.claim.job.reply !== null) return await runAnswer(claimed, signal, deps);
    return await runReview(job, claimed, signal, deps, jobAiReviewer(claimed, deps));
  } catch (err) {
    return await endJobOnError(job, lockToken, held, err, signal, deps);
  } finally {
    finish();
    await lease?.release().catch((err: unknown) => {
      logger.warn({ err }, "lease release failed");
    });
  }
}
