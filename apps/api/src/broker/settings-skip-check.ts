import { AppError } from "@reviewbot/core/errors";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { JobOutcome } from "@reviewbot/contracts/worker-protocol";

/**
 * A report that says the repository's settings skipped the review must name a reason the api's own
 * sealed job supports: only an automatic review (one that carries `pull`) is skipped by settings,
 * a draft only if the PR was a draft, a label only one the PR carried, an app's PR only if an app
 * opened it. A worker cannot make the check run say what the api never saw (it can only skip its
 * own job, which it could already leave undone).
 */
export function refuseUnfoundedSkip(job: ReviewJob, outcome: JobOutcome): void {
  if (outcome.kind !== "completed" || outcome.report.skipped === undefined) return;
  const skipped = outcome.report.skipped;
  const { pull } = job;
  const founded =
    pull !== undefined &&
    (skipped.reason === "automatic-review-off" ||
      (skipped.reason === "draft" && pull.draft) ||
      (skipped.reason === "bot-author" && pull.authorBot) ||
      (skipped.reason === "label" && pull.labels.includes(skipped.label)));
  if (!founded) throw new AppError("REQUEST_INVALID", `a review skipped for ${skipped.reason} does not match the job the api sealed`);
}
