import { DelayedError, UnrecoverableError, type Job, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import { isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { releaseShare } from "@reviewbot/queue/fair-share";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { isSuperseded } from "@reviewbot/queue/pull-request-state";
import { parseReviewJob, type ReviewJob } from "@reviewbot/queue/review-job";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { ReviewSource } from "./review-source.js";
import { abortCause, type RunningJobs } from "./running-jobs.js";
import { toPublishedReport } from "./to-published-report.js";
import type { WorkerMetrics } from "./worker-metrics.js";
import type { ReviewProgress } from "@reviewbot/review/pipeline/review-progress";

export interface ProcessDependencies {
  /** A non-blocking command connection (leases, PR state, fair share). */
  readonly redis: Redis;
  readonly githubQueue: Queue;
  readonly source: ReviewSource;
  readonly cache: CloneCache;
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  readonly logger: Logger;
  readonly running: RunningJobs;
  readonly metrics: WorkerMetrics;
  /** The PR lease's expiry; renewed every third of it while the job runs. */
  readonly leaseTtlMs: number;
  readonly filterMode: FilterMode;
  /** How long a job waits before trying again for a lease another job of its PR holds. */
  readonly leaseRetryMs: number;
  /** The registry proxy and deps cache, when the operator turned install hooks on and they can run here. */
  readonly installHooks?: InstallHookRuntime;
}

export type ReviewJobResult =
  | { readonly outcome: "completed"; readonly findings: number }
  | { readonly outcome: "superseded" }
  | { readonly outcome: "cancelled" };

/**
 * The BullMQ processor of a review job: validate, skip a superseded head, take the PR's lease,
 * run the pipeline with an abort signal, and hand the result (or a final failure) to the
 * publisher through the GitHub queue. Final errors become `UnrecoverableError`; retryable ones are
 * rethrown for BullMQ's backoff; a job handed back at shutdown returns to the queue at once.
 */
export async function processReviewJob(job: Job, token: string | undefined, deps: ProcessDependencies): Promise<ReviewJobResult> {
  const jobId = job.id ?? "";
  let review: ReviewJob;
  try {
    review = parseReviewJob(job.data);
  } catch (err) {
    deps.metrics.countJob("invalid");
    deps.logger.warn({ jobId, err }, "review job invalid");
    throw new UnrecoverableError(isAppError(err) ? `${err.code}: ${err.message}` : String(err));
  }
  const logger = deps.logger.child({ jobId, repo: review.repository, pr: review.pullNumber, headSha: review.headSha });
  if (await isSuperseded(deps.redis, review)) {
    await releaseShare(deps.redis, review.installationId, jobId);
    deps.metrics.countJob("superseded");
    logger.info("review superseded before it started");
    return { outcome: "superseded" };
  }
  const lease = new PullRequestLease(deps.redis, review, jobId, deps.leaseTtlMs);
  if (!(await lease.acquire())) {
    deps.metrics.countJob("deferred");
    await job.moveToDelayed(Date.now() + deps.leaseRetryMs, token);
    throw new DelayedError();
  }
  const { signal, finish } = deps.running.add(jobId);
  let finished = false;
  try {
    const outcome = await runReview(job, review, signal, { ...deps, logger });
    finished = true;
    return outcome;
  } catch (err) {
    const cause = abortCause(signal);
    if (cause === "shutdown") {
      deps.metrics.countJob("handed-back");
      logger.warn("review handed back at shutdown");
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (cause === "cancelled") {
      finished = true;
      await fail(deps.githubQueue, review, jobId, "REVIEW_CANCELLED", signal.reason instanceof Error ? signal.reason.message : "cancelled");
      deps.metrics.countJob("cancelled");
      logger.info("review cancelled");
      return { outcome: "cancelled" };
    }
    const final = !isAppError(err) || err.retryable ? job.attemptsMade + 1 >= (job.opts.attempts ?? 1) : true;
    const code = isAppError(err) ? err.code : "INTERNAL";
    const message = err instanceof Error ? err.message.split("\n", 1)[0] ?? "" : String(err);
    logger.error({ err, final, attempt: job.attemptsMade + 1 }, "review failed");
    if (!final) {
      deps.metrics.countJob("retried");
      throw err;
    }
    finished = true;
    deps.metrics.countJob("failed");
    await fail(deps.githubQueue, review, jobId, code, message);
    throw new UnrecoverableError(`${code}: ${message}`);
  } finally {
    finish();
    await lease.release().catch((err: unknown) => {
      logger.warn({ err }, "lease release failed");
    });
    if (finished) await releaseShare(deps.redis, review.installationId, jobId);
  }
}

async function runReview(job: Job, review: ReviewJob, signal: AbortSignal, deps: ProcessDependencies): Promise<ReviewJobResult> {
  const jobId = job.id ?? "";
  await enqueueGitHubTask(deps.githubQueue, { kind: "started", reviewJobId: jobId, review });
  // Shown per job in the dashboard: the stage, a line, and helpers done of total.
  const progress = (update: ReviewProgress): void => {
    void job.updateProgress({ ...update }).catch(() => undefined);
    // Between stages: a newer head makes the rest of this review pointless.
    void isSuperseded(deps.redis, review).then(
      (superseded) => superseded && deps.running.cancel(jobId, "superseded by a newer head"),
      () => undefined,
    );
  };
  const source = await deps.source.resolve(review, jobId);
  try {
    const report = await reviewPullRequest(
      { ...source.request, label: jobId, filterMode: deps.filterMode, signal },
      {
        cache: deps.cache,
        engine: deps.engine,
        operator: deps.operator,
        logger: deps.logger,
        secrets: source.secrets,
        onProgress: progress,
        ...(deps.installHooks === undefined ? {} : { installHooks: deps.installHooks }),
      },
    );
    deps.metrics.observeTimings(report.timings);
    if (signal.aborted) throw signal.reason;
    if (await isSuperseded(deps.redis, review)) {
      await fail(deps.githubQueue, review, jobId, "REVIEW_CANCELLED", "superseded by a newer head");
      deps.metrics.countJob("superseded");
      deps.logger.info("review superseded before publishing");
      return { outcome: "superseded" };
    }
    void job.updateProgress({ stage: "publishing", message: `${report.findings.length} finding(s)` }).catch(() => undefined);
    await enqueueGitHubTask(deps.githubQueue, { kind: "completed", reviewJobId: jobId, review, report: toPublishedReport(report) });
    deps.metrics.countJob("completed");
    deps.logger.info({ findings: report.findings.length, totalMs: report.timings.totalMs }, "review completed");
    return { outcome: "completed", findings: report.findings.length };
  } finally {
    source.release();
  }
}

async function fail(queue: Queue, review: ReviewJob, reviewJobId: string, code: string, reason: string): Promise<void> {
  await enqueueGitHubTask(queue, { kind: "failed", reviewJobId, review, code, reason: reason.slice(0, 2000) });
}
