import type { Job } from "bullmq";
import { isSuperseded } from "@reviewbot/queue/pull-request-state";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import type { ReviewProgress } from "@reviewbot/review/pipeline/review-progress";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { ClaimedJob } from "./claimed-job.js";
import { failure, reportResult } from "./job-outcome.js";
import type { ProcessDependencies } from "./process-dependencies.js";
import type { ReviewJobResult } from "./review-job-result.js";
import { untilAborted } from "./running-jobs.js";
import { toPublishedReport } from "@reviewbot/review/pipeline/to-published-report";

/** How long an aborted review waits for its sandboxes to be killed before it reports anyway. */
const ABORT_GRACE_MS = 10_000;

/**
 * A claimed job that reviews its PR: the source resolved with the claim's token, the pipeline run
 * with the job's signal (progress shown per job; a newer head seen between stages cancels it), then
 * `completed` reported with the report, or `REVIEW_CANCELLED` when a newer head came meanwhile.
 */
export async function runReview(
  job: Job,
  claimed: ClaimedJob,
  signal: AbortSignal,
  deps: ProcessDependencies,
  ai: AiReviewer | undefined,
): Promise<ReviewJobResult> {
  const { claim, logger } = claimed;
  const review = claim.job;
  // Shown per job in the dashboard: the stage, a line, and helpers done of total.
  const progress = (update: ReviewProgress): void => {
    void job.updateProgress({ ...update }).catch(() => undefined);
    // Between stages: a newer head makes the rest of this review pointless.
    void isSuperseded(deps.redis, deps.keys, review).then(
      (superseded) => superseded && deps.running.cancel(claimed.id, "superseded by a newer head"),
      () => undefined,
    );
  };
  const source = await deps.source.resolve(review, claim.token);
  // The PR's title and description (untrusted) go to the context script and the model as data.
  const pullRequest = { number: review.pullNumber, ...(claim.pullRequest ?? {}) };
  const pipeline = reviewPullRequest(
    // An `ai-only` job is the api's retry of the AI review alone: the helpers' results it completes are published already.
    {
      ...source.request,
      label: claimed.id,
      filterMode: deps.filterMode,
      signal,
      pullRequest,
      aiOnly: review.mode === "ai-only",
      // What the api saw of an automatic review's PR, for the trusted settings to skip it by.
      ...(review.pull === undefined ? {} : { automatic: review.pull }),
    },
    {
      cache: deps.cache,
      engine: deps.engine,
      operator: deps.operator,
      logger,
      secrets: source.secrets,
      onProgress: progress,
      ...(deps.installHooks === undefined ? {} : { installHooks: deps.installHooks }),
      ...(ai === undefined ? {} : { ai }),
    },
  );
  // The job's secrets are forgotten when the pipeline is over, even if an abort stopped us waiting.
  const release = (): void => {
    source.release();
  };
  void pipeline.then(release, release);
  // Sandboxes die through the signal; a checkout in flight does not take it, so after an abort (the
  // deadline, a cancel, a shutdown) the wait ends within ABORT_GRACE_MS and git's own deadline ends the fetch.
  const report = await untilAborted(pipeline, signal, ABORT_GRACE_MS);
  deps.metrics.observeTimings(report.timings);
  if (signal.aborted) throw signal.reason;
  if (await isSuperseded(deps.redis, deps.keys, review)) {
    await reportResult(claimed, failure("REVIEW_CANCELLED", "superseded by a newer head"));
    deps.metrics.countJob("superseded");
    logger.info("review superseded before publishing");
    return { outcome: "superseded" };
  }
  void job.updateProgress({ stage: "publishing", message: `${report.findings.length} finding(s)` }).catch(() => undefined);
  await reportResult(claimed, { kind: "completed", report: toPublishedReport(report) });
  deps.metrics.countJob("completed");
  logger.info({ findings: report.findings.length, totalMs: report.timings.totalMs }, "review completed");
  return { outcome: "completed", findings: report.findings.length };
}
