import { MAX_ANSWER_CHARS } from "@reviewbot/contracts/worker-protocol";
import { createThreadAnswerer } from "@reviewbot/review/ai/answer-thread";
import type { ClaimedJob } from "./claimed-job.js";
import { jobAiOptions } from "./job-ai-reviewer.js";
import { reportResult } from "./job-outcome.js";
import type { ProcessDependencies } from "./process-dependencies.js";
import type { ReviewJobResult } from "./review-job-result.js";

/**
 * A claimed job that answers a reply in one of our review threads: the PR checked out like a
 * review's (the model's tools read its git objects), the thread the api read from GitHub, and the
 * model through the api's broker; reported as `answered`, or `skipped` when there is nothing to
 * answer with (no model offered, the thread or the reply gone, or the model gave no answer). No
 * helper runs and nothing of the PR's code executes.
 */
export async function runAnswer(claimed: ClaimedJob, signal: AbortSignal, deps: ProcessDependencies): Promise<ReviewJobResult> {
  const { claim, logger } = claimed;
  const options = jobAiOptions(claimed, deps);
  if (options === undefined || claim.thread === null) {
    await reportResult(claimed, { kind: "skipped" });
    logger.info({ model: options !== undefined, thread: claim.thread !== null }, "reply not answered: no model or no thread");
    return { outcome: "skipped" };
  }
  logger.info({ replyId: claim.job.reply?.commentId }, "answering a reply");
  const source = await deps.source.resolve(claim.job, claim.token);
  try {
    const checkout = await deps.cache.checkout({ ...source.request, label: claimed.id });
    try {
      const answered = await createThreadAnswerer(options, MAX_ANSWER_CHARS)(checkout, claim.thread, signal);
      signal.throwIfAborted();
      if (answered.answer === null) {
        await reportResult(claimed, { kind: "skipped" });
        logger.warn({ ended: answered.ended, ...answered.usage }, "reply not answered: the model gave no answer");
        return { outcome: "skipped" };
      }
      await reportResult(claimed, { kind: "answered", answer: answered.answer });
      deps.metrics.countJob("answered");
      logger.info({ ended: answered.ended, ...answered.usage }, "reply answered");
      return { outcome: "answered" };
    } finally {
      await checkout.release();
    }
  } finally {
    source.release();
  }
}
