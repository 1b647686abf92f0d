import { UnrecoverableError } from "bullmq";
import { isAppError, type ErrorCode } from "@reviewbot/core/errors";

/** What BullMQ says of an attempt: how many ended before it, and how many the job has. */
export interface AttemptCount {
  readonly attemptsMade: number;
  readonly opts: { readonly attempts?: number };
}

/** An attempt's error, as a processor logs, reports and throws it. */
export interface AttemptFailure {
  /** The error's code; `INTERNAL` for an error that is not an AppError (a bug). */
  readonly code: ErrorCode;
  /** The first line of the error's message. */
  readonly reason: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  /** Another attempt could succeed (an AppError says so; any other error is a bug, retried too). */
  readonly retryable: boolean;
  /** No attempt follows: the error is final, or this was the job's last attempt. */
  readonly final: boolean;
  /** What the processor throws: for a final failure an `UnrecoverableError` `CODE: reason`, else the error itself. */
  readonly thrown: unknown;
}

/**
 * Maps an error thrown by a job's attempt to BullMQ's retry bookkeeping: a non-retryable
 * AppError fails the job at once, through `UnrecoverableError` (BullMQ would spend its attempts
 * on it otherwise); anything else is retried with the job's backoff until its last attempt, which
 * fails it for good with its code. BullMQ counts `attemptsMade` after an attempt ends, so the
 * running attempt is `attemptsMade + 1`.
 */
export function attemptFailure(job: AttemptCount, err: unknown): AttemptFailure {
  const code: ErrorCode = isAppError(err) ? err.code : "INTERNAL";
  const retryable = isAppError(err) ? err.retryable : true;
  const attempt = job.attemptsMade + 1;
  const final = !retryable || attempt >= (job.opts.attempts ?? 1);
  const reason = err instanceof Error ? (err.message.split("\n", 1)[0] ?? "") : String(err);
  return { code, reason, attempt, retryable, final, thrown: final ? new UnrecoverableError(`${code}: ${reason}`) : err };
}
