import type { BudgetedModel } from "@reviewbot/contracts/chat";
import type { AiOffer } from "@reviewbot/contracts/worker-protocol";
import type { ClaimedJob } from "./claimed-job.js";

/**
 * A `ChatModel` for one claimed job: every call goes to the api's model broker under the job's
 * claim (`ClaimedJob.model`); the worker never holds the model's key or URL. The broker's answer carries the job's
 * token budget, which the review loop uses to plan its last turn: `tokensLeft` is what the broker
 * last said (the offer's whole budget before the first call).
 */
export function brokeredModel(job: Pick<ClaimedJob, "model">, offer: AiOffer): BudgetedModel {
  let left = offer.jobTokens;
  return {
    model: offer.model,
    tokensLeft: () => left,
    async complete(request, signal) {
      const answer = await job.model(request, signal);
      left = Math.max(0, answer.budget.maxTokens - answer.budget.usedTokens);
      return answer.response;
    },
  };
}
