import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { createAiReviewer, type AiReviewOptions } from "@reviewbot/review/ai/ai-review";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import { AI_REPORT_MARGIN_MS } from "@reviewbot/contracts/worker-protocol";
import { brokeredModel } from "./brokered-model.js";
import type { ClaimedJob } from "./claimed-job.js";

/**
 * The model of one claimed job, when the api's claim offered one: every model call, fetch and
 * cached chunk goes through the api's broker for this job and lock (the worker never holds the
 * model's key or URL). Its time ends before the job's token does and before the review's own
 * deadline, so the last turn still has a token to read with. Everything sent to the model is
 * scrubbed of the secrets this worker knows (its credential, the Redis password, the job's token).
 */
export function jobAiOptions(claimed: ClaimedJob, deps: { readonly scrubber: SecretScrubber; readonly reviewDeadlineMs: number }): AiReviewOptions | undefined {
  const { claim } = claimed;
  const offer = claim.ai;
  if (offer === null) return undefined;
  const tokenEnd = claim.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(claim.expiresAt);
  const deadline = Math.min(Number.isNaN(tokenEnd) ? Date.now() : tokenEnd, Date.now() + deps.reviewDeadlineMs) - AI_REPORT_MARGIN_MS;
  const model = brokeredModel(claimed, offer);
  return {
    model,
    tokensLeft: () => model.tokensLeft(),
    contextTokens: offer.contextTokens,
    maxOutputTokens: offer.maxOutputTokens,
    deadline,
    ...(offer.fetchUrl ? { fetchUrl: (url: string, signal: AbortSignal) => claimed.fetch(url, signal) } : {}),
    cache: claimed.aiCache,
    scrub: (text) => deps.scrubber.scrub(text),
    logger: claimed.logger,
    ...(claim.previous === null ? {} : { previous: claim.previous }),
  };
}

/** The AI review of one claimed job (see {@link jobAiOptions}), when the claim offered a model. */
export function jobAiReviewer(claimed: ClaimedJob, deps: Parameters<typeof jobAiOptions>[1]): AiReviewer | undefined {
  const options = jobAiOptions(claimed, deps);
  return options === undefined ? undefined : createAiReviewer(options);
}
