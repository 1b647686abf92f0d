import type { ErrorCode } from "@reviewbot/core/errors";
import type { JobOutcome } from "@reviewbot/contracts/worker-protocol";
import type { HeldJob } from "./held-job.js";

/** A `failed` outcome, its reason cut to the 2000 characters the api takes. */
export function failure(code: ErrorCode, reason: string): JobOutcome {
  return { kind: "failed", code, reason: reason.slice(0, 2000) };
}

/**
 * Reports an outcome that ends the job anyway (a skip before the claim, a cancel, a deadline, a
 * final failure): a refusal, or an api still unreachable after the client's retries, is logged, not
 * thrown, since the job ends the same whatever the api answers.
 */
export async function reportAnyway(job: HeldJob, outcome: JobOutcome): Promise<void> {
  const reported = await job.report(outcome).catch((err: unknown) => ({ status: "unsent" as const, error: err }));
  if (reported.status === "refused" || reported.status === "unsent") {
    job.logger.warn({ err: reported.error, outcome: outcome.kind }, "outcome not recorded by the api");
  }
}

/**
 * Reports the outcome a run produced (a review, an answer, a skip): a refusal is thrown with the
 * api's code, so the job fails for good rather than counting as done when the api kept another
 * outcome or the job was no longer this worker's. Other errors throw as they are (see
 * {@link HeldJob.report}).
 */
export async function reportResult(job: HeldJob, outcome: JobOutcome): Promise<void> {
  const reported = await job.report(outcome);
  if (reported.status === "refused") throw reported.error;
}
