import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { ClaimResponse } from "@reviewbot/contracts/worker-protocol";
import { createAiReviewer, type AiReviewOptions } from "@reviewbot/review/ai/ai-review";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import { brokeredModel } from "./brokered-model.js";
import type { JobClient } from "./job-client.js";

/** Time kept after the AI review's last turn for placing findings and reporting before the deadline. */
const REPORT_MARGIN_MS = 60_000;

/**
 * The model of one claimed job, when the api's claim offered one: every model call, fetch and
 * cached chunk goes through the api's broker for this job and lock (the worker never holds the
 * model's key or URL). Its time ends before the job's token does and before the review's own
 * deadline, so the last turn still has a token to read with. Everything sent to the model is
 * scrubbed of the secrets this worker knows (its credential, the Redis password, the job's token).
 */
export function jobAiOptions(
  claim: ClaimResponse,
  call: { readonly jobs: JobClient; readonly jobId: string; readonly lockToken: string },
  deps: { readonly scrubber: SecretScrubber; readonly logger: Logger; readonly reviewDeadlineMs: number },
): AiReviewOptions | undefined {
  const offer = claim.ai;
  if (offer === null) return undefined;
  const { jobs, jobId, lockToken } = call;
  const tokenEnd = claim.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(claim.expiresAt);
  const deadline = Math.min(Number.isNaN(tokenEnd) ? Date.now() : tokenEnd, Date.now() + deps.reviewDeadlineMs) - REPORT_MARGIN_MS;
  const model = brokeredModel(jobs, jobId, lockToken, offer);
  return {
    model,
    tokensLeft: () => model.tokensLeft(),
    contextTokens: offer.contextTokens,
    maxOutputTokens: offer.maxOutputTokens,
    deadline,
    ...(offer.fetchUrl ? { fetchUrl: (url: string, signal: AbortSignal) => jobs.fetchUrl(jobId, lockToken, url, signal) } : {}),
    cache: {
      get: async (key) => (await jobs.aiCache(jobId, lockToken, key)).result,
      put: async (key, result) => {
        await jobs.aiCache(jobId, lockToken, key, result);
      },
    },
    scrub: (text) => deps.scrubber.scrub(text),
    logger: deps.logger,
    ...(claim.previous === null ? {} : { previous: claim.previous }),
  };
}

/** The AI review of one claimed job (see {@link jobAiOptions}), when the claim offered a model. */
export function jobAiReviewer(
  claim: ClaimResponse,
  call: Parameters<typeof jobAiOptions>[1],
  deps: Parameters<typeof jobAiOptions>[2],
): AiReviewer | undefined {
  const options = jobAiOptions(claim, call, deps);
  return options === undefined ? undefined : createAiReviewer(options);
}
