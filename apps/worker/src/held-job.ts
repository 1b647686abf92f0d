import type { AppError, ErrorCode } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { JobOutcome, ReportResponse } from "@reviewbot/contracts/worker-protocol";

/** What {@link HeldJob.report} resolves to: the api's answer, or its refusal (never thrown). */
export type ReportResult = ReportResponse | { readonly status: "refused"; readonly error: AppError };

/** The api's refusals of the job itself: an outcome reported for such a job would be refused too. */
const REFUSALS: ReadonlySet<ErrorCode> = new Set(["JOB_NOT_HELD", "OUTCOME_RECORDED"]);

/** Whether `code` is the api refusing the job itself (see {@link HeldJob.report}). */
export function isRefusal(code: ErrorCode): boolean {
  return REFUSALS.has(code);
}

/**
 * A review job this worker holds under BullMQ's lock, claimed from the api or not yet: built by the
 * job client (`jobs.hold`) once per attempt, so the job id and lock token are bound here and nowhere
 * else. A job can end before its claim (a newer head, a claim that failed for good), and the api
 * takes its outcome then too.
 */
export interface HeldJob {
  /** BullMQ's job id, which the api sealed. */
  readonly id: string;
  /** The lock BullMQ holds the job with: the api checks it on every call for the job. */
  readonly lockToken: string;
  /** The job's child logger (`jobId`, `repo`, `pr`, `headSha`). */
  readonly logger: Logger;
  /**
   * Reports how the job ended; the api records the first outcome and publishes it.
   *
   * A refusal is returned as `{ status: "refused", error }`, never thrown: the api answering that
   * this worker does not hold the job (403 `JOB_NOT_HELD`: it ended, the lock is not the job's
   * current one, another worker claimed it) or that a different outcome came first (409
   * `OUTCOME_RECORDED`). It is the api's final word on the job, and only the caller knows what it
   * means for the run: an outcome that ends the job anyway just logs it (`reportAnyway`), a run's
   * own result fails the job with the api's code (`reportResult`). Anything else throws: the api
   * still unreachable after the client's retries (`API_UNAVAILABLE`, retryable, so BullMQ retries
   * the job) or a request it rejected (e.g. `REQUEST_INVALID`, final).
   */
  report(outcome: JobOutcome): Promise<ReportResult>;
}
