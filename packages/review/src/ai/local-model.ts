import { AppError } from "@reviewbot/core/errors";
import type { BudgetedModel } from "@reviewbot/contracts/chat";
import { priceOf } from "@reviewbot/llm/llm-prices";
import type { LlmEnabledSettings } from "@reviewbot/llm/llm-settings";
import type { ModelClient } from "@reviewbot/llm/model-client";

/**
 * The CLI's own broker for one review: what the api's broker keeps in Redis per job is kept here
 * in memory. A call is let through while the job's token cap (and, with prices, its spend cap) is
 * not used up, its output is clamped to the operator's cap and to the tokens left, and each
 * answer's usage is counted (`tokensLeft` is REVIEWBOT_LLM_JOB_TOKENS less what the answers used).
 * The installation's daily caps do not apply: a CLI run has no installation, and its operator is
 * the one paying.
 */
export function localModel(client: Pick<ModelClient, "complete">, llm: LlmEnabledSettings): BudgetedModel {
  let usedTokens = 0;
  let spent = 0;
  const refuse = (what: string): never => {
    throw new AppError("LLM_BUDGET_EXCEEDED", `the review's ${what} is used up`);
  };
  return {
    model: llm.model,
    tokensLeft: () => Math.max(0, llm.jobTokens - usedTokens),
    async complete(request, signal) {
      if (usedTokens >= llm.jobTokens) refuse(`token budget (${llm.jobTokens} tokens)`);
      if (llm.jobMicrodollars !== null && spent >= llm.jobMicrodollars) refuse("spend cap");
      const maxTokens = Math.max(1, Math.min(request.maxTokens, llm.maxTokens, llm.jobTokens - usedTokens));
      const answer = await client.complete({ ...request, maxTokens }, signal);
      usedTokens += answer.usage.inputTokens + answer.usage.outputTokens;
      spent += priceOf(answer.usage, request.model, llm.prices);
      return answer;
    },
  };
}
