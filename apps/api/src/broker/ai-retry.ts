import { witnessOfReview } from "./job-witness.js";
import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import { enqueueAiRetry } from "@reviewbot/queue/enqueue-ai-retry";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { reviewJobId } from "@reviewbot/queue/review-queue";
import { PublishedReport } from "@reviewbot/contracts/published-report";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { JobOutcome } from "@reviewbot/contracts/worker-protocol";
import { modelWasDown } from "./model-outage.js";

/** The operator's bounds on retrying the AI review alone (REVIEWBOT_AI_RETRY_*). */
export interface AiRetrySettings {
  /** Retries of one review's AI review; 0: never retried. */
  readonly attempts: number;
  /** The wait before the first retry; each later one waits twice as long as the one before. */
  readonly delayMs: number;
}

export interface AiRetryDeps {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly reviews: Queue;
  readonly github: Queue;
  readonly seal: QueueSeal;
  readonly logger: Logger;
  readonly aiRetry: AiRetrySettings;
}

/** How long a review's report waits for its AI review: past the last retry of any setting. */
const PENDING_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * `reviewbot:ai-retry:<reviewJobId>`: api-only, the report of a review whose AI review is being
 * retried, exactly as the api received it from the worker that held the review (never what a
 * later worker says of the helpers).
 */
export function pendingAiKey(keys: RedisKeyspace, reviewJobId: string): string {
  return `${keys.ours}:ai-retry:${reviewJobId}`;
}

/**
 * A completed review's report before it is published: when its AI review failed while the broker
 * found the model endpoint unavailable for this job (the api's own record, `modelWasDown`; a used-up
 * budget or a refusal is no outage and is not retried), the report is kept and a retry of the AI
 * review alone is scheduled; the report is published now, its note saying the retry comes.
 */
export async function holdForAiRetry(deps: AiRetryDeps, jobId: string, review: ReviewJob, report: PublishedReport): Promise<PublishedReport> {
  if (report.ai.status !== "failed" || deps.aiRetry.attempts === 0 || !(await modelWasDown(deps.redis, deps.keys, jobId))) return report;
  // Kept before the retry exists, so the retry always finds it.
  await deps.redis.set(pendingAiKey(deps.keys, jobId), JSON.stringify(report), "PX", PENDING_TTL_MS);
  const retry = await enqueueAiRetry(deps.reviews, deps.redis, deps.keys, deps.seal, review, 1, deps.aiRetry.delayMs);
  if (retry === null) {
    await deps.redis.del(pendingAiKey(deps.keys, jobId));
    return report;
  }
  deps.logger.info({ jobId, retry, delayMs: deps.aiRetry.delayMs }, "model endpoint unavailable: AI review retried alone later");
  return withNote(report, `the AI review is retried on its own (up to ${deps.aiRetry.attempts} time(s)) and added to this check run`);
}

/**
 * The outcome of an `ai-only` job: its AI review goes into the review's kept report, published as
 * an amendment of the review's own check run (`ai-retried`). Another outage, as the broker saw it,
 * schedules the next attempt (each waiting twice as long) until the operator's cap; the last one
 * publishes what it got. A failed or skipped retry publishes nothing: the review stays as published,
 * and no check run is made for the retry.
 */
export async function settleAiRetry(deps: AiRetryDeps, jobId: string, job: ReviewJob, outcome: JobOutcome): Promise<void> {
  const { mode, aiAttempt, ...review } = job;
  const reviewId = reviewJobId(review);
  const logger = deps.logger.child({ jobId, review: reviewId, mode });
  if (outcome.kind !== "completed") {
    logger.info({ outcome: outcome.kind }, "AI review retry ended without a review: the published review stands");
    return;
  }
  const kept = await deps.redis.get(pendingAiKey(deps.keys, reviewId));
  if (kept === null) {
    logger.info("AI review retry completed, but its review's report is no longer kept: nothing to amend");
    return;
  }
  const attempt = aiAttempt ?? 1;
  let report: PublishedReport = { ...PublishedReport.parse(JSON.parse(kept)), ai: outcome.report.ai };
  if (report.ai.status === "failed" && (await modelWasDown(deps.redis, deps.keys, jobId))) {
    if (attempt < deps.aiRetry.attempts) {
      const delayMs = deps.aiRetry.delayMs * 2 ** attempt;
      const retry = await enqueueAiRetry(deps.reviews, deps.redis, deps.keys, deps.seal, review, attempt + 1, delayMs);
      if (retry !== null) {
        logger.info({ retry, delayMs }, "model endpoint still unavailable: AI review retried alone later");
        return;
      }
    }
    report = withNote(report, `the AI review was retried ${attempt} time(s) on its own; reviewbot gave up`);
  }
  // What the broker saw of this retry's model calls (its own job id) vouches for its AI review.
  const witness = await witnessOfReview(deps.redis, deps.keys, jobId, report.ai);
  await enqueueGitHubTask(deps.github, deps.seal, { kind: "ai-retried", reviewJobId: reviewId, review, report, witness });
  await deps.redis.del(pendingAiKey(deps.keys, reviewId));
  logger.info({ ai: report.ai.status, attempt }, "AI review retry completes its review");
}

function withNote(report: PublishedReport, more: string): PublishedReport {
  const note = report.ai.note === null ? more : `${report.ai.note}; ${more}`;
  return { ...report, ai: { ...report.ai, note: note.slice(0, 2000) } };
}
