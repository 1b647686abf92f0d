import { describe, expect, it } from "vitest";
import { isAppError } from "@reviewbot/core/errors";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import { toLlmSettings, type LlmEnabledSettings } from "@reviewbot/llm/llm-settings";
import { LlmPricesSetting } from "@reviewbot/llm/llm-prices";
import { localModel } from "./local-model.js";

/** Settings as the env gives them: a 1000-token job cap and a 300-token output cap. */
function settings(more: { prices?: string; jobMicrodollars?: number } = {}): LlmEnabledSettings {
  const llm = toLlmSettings({
    REVIEWBOT_LLM_PROTOCOL: "openai",
    REVIEWBOT_LLM_BASE_URL: "http://127.0.0.1:1/v1",
    REVIEWBOT_LLM_MODEL: "m1",
    REVIEWBOT_LLM_MAX_TOKENS: 300,
    REVIEWBOT_LLM_TIMEOUT_MS: 1000,
    REVIEWBOT_LLM_PRICES: LlmPricesSetting.parse(more.prices ?? ""),
    REVIEWBOT_LLM_JOB_TOKENS: 1000,
    REVIEWBOT_LLM_INSTALLATION_DAILY_TOKENS: 10,
    REVIEWBOT_LLM_FETCH_HOSTS: [],
    REVIEWBOT_LLM_CONTEXT_TOKENS: 4096,
    ...(more.jobMicrodollars === undefined ? {} : { REVIEWBOT_LLM_JOB_SPEND_USD: more.jobMicrodollars }),
  });
  if (!llm.enabled) throw new Error("the settings name a base URL");
  return llm;
}

/** A provider that answers every call with `usage` and records the output cap it was asked for. */
function provider(usage: { inputTokens: number; outputTokens: number }) {
  const asked: number[] = [];
  return {
    asked,
    complete: (request: ChatRequest): Promise<ChatResponse> => {
      asked.push(request.maxTokens);
      return Promise.resolve({ model: request.model, content: "ok", toolCalls: [], stop: "end", usage });
    },
  };
}

const request = (maxTokens: number): ChatRequest => ({
  model: "m1",
  system: "s",
  messages: [{ role: "user", content: "u" }],
  tools: [],
  toolChoice: "auto",
  maxTokens,
});

async function code(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => "answered",
    (error: unknown) => (isAppError(error) ? error.code : String(error)),
  );
}

describe("localModel: the CLI's own budget", () => {
  it("clamps each call's output to the operator's cap and to the tokens left, then refuses once they are used", async () => {
    const upstream = provider({ inputTokens: 500, outputTokens: 100 });
    const model = localModel(upstream, settings());
    expect(model.tokensLeft()).toBe(1000);
    expect(await code(model.complete(request(4000)))).toBe("answered");
    expect(model.tokensLeft()).toBe(400);
    expect(await code(model.complete(request(4000)))).toBe("answered");
    expect(model.tokensLeft()).toBe(0);
    expect(await code(model.complete(request(4000)))).toBe("LLM_BUDGET_EXCEEDED");
    // The installation's daily cap (10 tokens) is not the CLI's: the first call went through.
    expect(upstream.asked).toEqual([300, 300]);
  });

  it("asks for less than the cap when the tokens left are fewer", async () => {
    const upstream = provider({ inputTokens: 850, outputTokens: 50 });
    const model = localModel(upstream, settings());
    await model.complete(request(200));
    await model.complete(request(200));
    expect(upstream.asked).toEqual([200, 100]);
  });

  // 10 tokens at $1000 per million are 10,000 microdollars: a 5,000 cap is passed by the first call.
  it.each([
    ["passed by the first call", 5_000, "LLM_BUDGET_EXCEEDED"],
    ["not reached by the first call", 50_000, "answered"],
  ])("with a spend cap %s, the second call is %s", async (_case, jobMicrodollars, second) => {
    const model = localModel(provider({ inputTokens: 5, outputTokens: 5 }), settings({ prices: "m1=1000/1000", jobMicrodollars }));
    expect(await code(model.complete(request(10)))).toBe("answered");
    expect(await code(model.complete(request(10)))).toBe(second);
  });
});
