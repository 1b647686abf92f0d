import type { ChatModel } from "@reviewbot/contracts/chat";
import type { AiOffer } from "@reviewbot/contracts/worker-protocol";
import type { JobClient } from "./job-client.js";

/** The model as a worker reaches it: through the api's broker, for one job it holds. */
export interface BrokeredModel extends ChatModel {
  /** Tokens the job may still spend, as the broker last said (its whole budget before the first call). */
  tokensLeft(): number;
}

/**
 * A `ChatModel` for one claimed job: every call goes to the api's model broker with the job id and
 * lock token; the worker never holds the model's key or URL. The broker's answer carries the job's
 * token budget, which the review loop uses to plan its last turn.
 */
export function brokeredModel(jobs: JobClient, jobId: string, lockToken: string, offer: AiOffer): BrokeredModel {
  let left = offer.jobTokens;
  return {
    model: offer.model,
    tokensLeft: () => left,
    async complete(request, signal) {
      const answer = await jobs.model(jobId, lockToken, request, signal);
      left = Math.max(0, answer.budget.maxTokens - answer.budget.usedTokens);
      return answer.response;
    },
  };
}
