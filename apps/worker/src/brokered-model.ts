import type { BudgetedModel } from "@reviewbot/llm/chat";
import type { AiOffer } from "@reviewbot/queue/worker-protocol";
import type { JobClient } from "./job-client.js";

/**
 * A `ChatModel` for one claimed job: every call goes to the api's model broker with the job id and
 * lock token; the worker never holds the model's key or URL. The broker's answer carries the job's
 * token budget, which the review loop uses to plan its last turn: `tokensLeft` is what the broker
 * last said (the offer's whole budget before the first call).
 */
export function brokeredModel(jobs: JobClient, jobId: string, lockToken: string, offer: AiOffer): BudgetedModel {
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
