import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { isAppError, type AppError, type ErrorCode } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { isSuperseded } from "@reviewbot/queue/pull-request-state";
import { attemptFailure } from "@reviewbot/queue/attempt-failure";
import { readReviewJob } from "@reviewbot/queue/queued-review-job";
import type { ReviewJob } from "@reviewbot/queue/review-job";
import type { ClaimResponse, JobOutcome } from "@reviewbot/queue/worker-protocol";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import type { ReviewProgress } from "@reviewbot/review/pipeline/review-progress";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import type { JobClient } from "./job-client.js";
import type { ReviewSource } from "./review-source.js";
import { jobAiReviewer } from "./job-ai-reviewer.js";
import { runAnswer } from "./run-answer.js";
import { abortCause, untilAborted, type RunningJobs } from "./running-jobs.js";
import { toPublishedReport } from "./to-published-report.js";
import type { WorkerMetrics } from "./worker-metrics.js";

export interface ProcessDependencies {
  /** A non-blocking command connection (PR leases, PR state): the worker's Redis user reaches nothing else of ours. */
  readonly redis: Redis;
  /** The api's worker routes: claim a job, report how it ended. */
  readonly jobs: JobClient;
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
  /** Holds this worker's secrets and each job's token: scrubbed from what the model is sent. */
  readonly scrubber: SecretScrubber;
  /** The review's wall-clock deadline (REVIEWBOT_REVIEW_DEADLINE_MS): the AI review ends before it. */
  readonly reviewDeadlineMs: number;
}

export type ReviewJobResult =
  | { readonly outcome: "completed"; readonly findings: number }
  | { readonly outcome: "answered" }
  | { readonly outcome: "skipped" }
  | { readonly outcome: "superseded" }
  | { readonly outcome: "cancelled" };

/** Refusals of the api itself: reporting an outcome for such a job would be refused too. */
const REFUSED_BY_API = new Set<ErrorCode>(["JOB_NOT_HELD", "OUTCOME_RECORDED"]);

/** How long an aborted review waits for its sandboxes to be killed before it reports anyway. */
const ABORT_GRACE_MS = 10_000;

/** A job of a busy installation waits what the api says (`Retry-After`), within these bounds. */
const BUSY_DELAY_MS = { min: 1000, max: 60_000, otherwise: 5000 } as const;

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
    return await reviewQueuedJob(job, lockToken, queued, { ...deps, logger });
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
async function reviewQueuedJob(job: Job, lockToken: string | undefined, queued: ReviewJob, deps: ProcessDependencies): Promise<ReviewJobResult> {
  const jobId = job.id ?? "";
  const lock = lockToken ?? "";
  const logger = deps.logger;
  // A job that answers a reply is no review of a head: a push neither supersedes nor waits for it.
  const answering = queued.reply !== null;
  if (!answering && (await isSuperseded(deps.redis, queued))) {
    await report(deps, jobId, lock, { kind: "skipped" }, logger);
    deps.metrics.countJob("superseded");
    logger.info("review superseded before it started");
    return { outcome: "superseded" };
  }
  const lease = answering ? null : new PullRequestLease(deps.redis, queued, jobId, deps.leaseTtlMs);
  if (lease !== null && !(await lease.acquire())) {
    deps.metrics.countJob("deferred");
    await job.moveToDelayed(Date.now() + deps.leaseRetryMs, lockToken);
    throw new DelayedError();
  }
  const { signal, finish } = deps.running.add(jobId);
  try {
    const claim = await deps.jobs.claim(jobId, lock);
    // What the job is comes from the api's sealed job, not the queued copy.
    if (claim.job.reply !== null) return await runAnswer(jobId, lock, claim, signal, deps);
    const ai = jobAiReviewer(claim, { jobs: deps.jobs, jobId, lockToken: lock }, deps);
    return await runReview(job, lock, claim, signal, deps, ai);
  } catch (err) {
    if (isAppError(err) && err.code === "INSTALLATION_BUSY") {
      const delayMs = busyDelayMs(err);
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
      await report(deps, jobId, lock, failure("REVIEW_CANCELLED", signal.reason instanceof Error ? signal.reason.message : "cancelled"), logger);
      deps.metrics.countJob("cancelled");
      logger.info("review cancelled");
      return { outcome: "cancelled" };
    }
    if (cause === "deadline") {
      const message = signal.reason instanceof Error ? signal.reason.message : "deadline";
      await report(deps, jobId, lock, failure("REVIEW_TIMEOUT", message), logger);
      deps.metrics.countJob("timed-out");
      logger.warn({ attempt: job.attemptsMade + 1 }, "review ran past its deadline");
      throw new UnrecoverableError(`REVIEW_TIMEOUT: ${message}`);
    }
    // A review that failed for good is reported while it holds the PR's lease, unless the api refused the job itself.
    const { final, code, reason } = attemptFailure(job, err);
    if (final && !REFUSED_BY_API.has(code)) await report(deps, jobId, lock, failure(code, reason), logger);
    throw err;
  } finally {
    finish();
    await lease?.release().catch((err: unknown) => {
      logger.warn({ err }, "lease release failed");
    });
  }
}

async function runReview(
  job: Job,
  lock: string,
  claim: ClaimResponse,
  signal: AbortSignal,
  deps: ProcessDependencies,
  ai: AiReviewer | undefined,
): Promise<ReviewJobResult> {
  const jobId = job.id ?? "";
  const review = claim.job;
  // Shown per job in the dashboard: the stage, a line, and helpers done of total.
  const progress = (update: ReviewProgress): void => {
    void job.updateProgress({ ...update }).catch(() => undefined);
    // Between stages: a newer head makes the rest of this review pointless.
    void isSuperseded(deps.redis, review).then(
      (superseded) => superseded && deps.running.cancel(jobId, "superseded by a newer head"),
      () => undefined,
    );
  };
  const source = await deps.source.resolve(review, claim.token);
  // The PR's title and description (untrusted) go to the context script and the model as data.
  const pullRequest = { number: review.pullNumber, ...(claim.pullRequest ?? {}) };
  const pipeline = reviewPullRequest(
    { ...source.request, label: jobId, filterMode: deps.filterMode, signal, pullRequest },
    {
      cache: deps.cache,
      engine: deps.engine,
      operator: deps.operator,
      logger: deps.logger,
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
  if (await isSuperseded(deps.redis, review)) {
    await deps.jobs.report(jobId, lock, failure("REVIEW_CANCELLED", "superseded by a newer head"));
    deps.metrics.countJob("superseded");
    deps.logger.info("review superseded before publishing");
    return { outcome: "superseded" };
  }
  void job.updateProgress({ stage: "publishing", message: `${report.findings.length} finding(s)` }).catch(() => undefined);
  await deps.jobs.report(jobId, lock, { kind: "completed", report: toPublishedReport(report) });
  deps.metrics.countJob("completed");
  deps.logger.info({ findings: report.findings.length, totalMs: report.timings.totalMs }, "review completed");
  return { outcome: "completed", findings: report.findings.length };
}

/** The api's `Retry-After` for a busy installation, within bounds: a wrong header neither parks a job for hours nor spins it. */
function busyDelayMs(err: AppError): number {
  const said = err.details.retryAfterMs;
  if (typeof said !== "number" || !Number.isFinite(said)) return BUSY_DELAY_MS.otherwise;
  return Math.min(Math.max(said, BUSY_DELAY_MS.min), BUSY_DELAY_MS.max);
}

function failure(code: ErrorCode, reason: string): JobOutcome {
  return { kind: "failed", code, reason: reason.slice(0, 2000) };
}

/** Reports an outcome that ends the job anyway: a refusal is logged, not thrown. */
async function report(deps: ProcessDependencies, jobId: string, lock: string, outcome: JobOutcome, logger: Logger): Promise<void> {
  await deps.jobs.report(jobId, lock, outcome).catch((err: unknown) => {
    logger.warn({ err, outcome: outcome.kind }, "outcome not recorded by the api");
  });
}
