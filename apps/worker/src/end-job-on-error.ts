import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import { isAppError } from "@reviewbot/core/errors";
import { attemptFailure } from "@reviewbot/queue/attempt-failure";
import { apiRetryAfterMs, type WaitBounds } from "./api-retry-after.js";
import { isRefusal, type HeldJob } from "./held-job.js";
import { failure, reportAnyway } from "./job-outcome.js";
import type { ProcessDependencies } from "./process-dependencies.js";
import type { ReviewJobResult } from "./review-job-result.js";
import { abortCause } from "./running-jobs.js";

/** A job of a busy installation waits what the api says (`Retry-After`), within these bounds. */
const BUSY_DELAY_MS: WaitBounds = { min: 1000, max: 60_000, otherwise: 5000 };

/**
 * How a claimed job ends when its run threw. A claim refused with `INSTALLATION_BUSY` goes back to
 * the queue for the api's `Retry-After`, without spending an attempt. After an abort: a shutdown
 * hands the job back at once; a cancel is reported (`REVIEW_CANCELLED`) and ends the job; a deadline
 * is reported (`REVIEW_TIMEOUT`) and fails it for good. Any other error is reported when it is final
 * (see {@link attemptFailure}) and rethrown. Called while the job still holds its PR's lease.
 * `lockToken` is BullMQ's, as the processor got it, for moving the job; `held` reports to the api.
 */
export async function endJobOnError(
  job: Job,
  lockToken: string | undefined,
  held: HeldJob,
  err: unknown,
  signal: AbortSignal,
  deps: Pick<ProcessDependencies, "metrics">,
): Promise<ReviewJobResult> {
  const logger = held.logger;
  if (isAppError(err) && err.code === "INSTALLATION_BUSY") {
    const delayMs = apiRetryAfterMs(err, BUSY_DELAY_MS);
    deps.metrics.countJob("busy");
    logger.info({ delayMs }, "installation busy: review deferred");
    await job.moveToDelayed(Date.now() + delayMs, lockToken);
    throw new DelayedError();
  }
  const cause = abortCause(signal);
  if (cause === "shutdown") {
    deps.metrics.countJob("handed-back");
    logger.warn("review handed back at shutdown");
    await job.moveToDelayed(Date.now(), lockToken);
    throw new DelayedError();
  }
  if (cause === "cancelled") {
    await reportAnyway(held, failure("REVIEW_CANCELLED", signal.reason instanceof Error ? signal.reason.message : "cancelled"));
    deps.metrics.countJob("cancelled");
    logger.info("review cancelled");
    return { outcome: "cancelled" };
  }
  if (cause === "deadline") {
    const message = signal.reason instanceof Error ? signal.reason.message : "deadline";
    await reportAnyway(held, failure("REVIEW_TIMEOUT", message));
    deps.metrics.countJob("timed-out");
    logger.warn({ attempt: job.attemptsMade + 1 }, "review ran past its deadline");
    throw new UnrecoverableError(`REVIEW_TIMEOUT: ${message}`);
  }
  // A review that failed for good is reported while it holds the PR's lease, unless the api refused the job itself.
  const { final, code, reason } = attemptFailure(job, err);
  if (final && !isRefusal(code)) await reportAnyway(held, failure(code, reason));
  throw err;
}
