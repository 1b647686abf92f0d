import type { ErrorCode } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { JobOutcome } from "@reviewbot/queue/worker-protocol";
import type { ProcessDependencies } from "./process-dependencies.js";

/** A `failed` outcome, its reason cut to the 2000 characters the api takes. */
export function failure(code: ErrorCode, reason: string): JobOutcome {
  return { kind: "failed", code, reason: reason.slice(0, 2000) };
}

/** Reports an outcome that ends the job anyway: a refusal is logged, not thrown. */
export async function report(deps: ProcessDependencies, jobId: string, lock: string, outcome: JobOutcome, logger: Logger): Promise<void> {
  await deps.jobs.report(jobId, lock, outcome).catch((err: unknown) => {
    logger.warn({ err, outcome: outcome.kind }, "outcome not recorded by the api");
  });
}
