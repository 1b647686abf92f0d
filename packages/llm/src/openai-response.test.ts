import { describe, expect, it } from "vitest";
import { parseOpenAiResponse } from "./openai-response.js";

const completion = (message: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
  id: "x",
  object: "chat.completion",
  model: "served-model",
  system_fingerprint: "fp",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish, logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
  ...extra,
});

describe("parseOpenAiResponse", () => {
  it("reads text, ignoring fields it does not know", () => {
    expect(parseOpenAiResponse(completion({ content: "Hello", refusal: null, reasoning_content: "hmm" }, "stop"), "asked")).toEqual({
      model: "served-model",
      content: "Hello",
      toolCalls: [],
      stop: "end",
      usage: { inputTokens: 12, outputTokens: 5 },
    });
  });

  it("reads tool calls", () => {
    const answer = parseOpenAiResponse(
      completion({ content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "read_file", arguments: '{"path":"b"}' } }] }, "tool_calls"),
      "asked",
    );
    expect(answer.toolCalls).toEqual([{ id: "call_9", name: "read_file", arguments: '{"path":"b"}' }]);
    expect(answer.stop).toBe("tool_calls");
    expect(answer.content).toBe("");
  });

  it.each([
    ["stop", "end"],
    ["tool_calls", "tool_calls"],
    ["function_call", "tool_calls"],
    ["length", "length"],
    ["content_filter", "other"],
    [null, "other"],
  ] as const)("maps finish_reason %s to %s", (finish, stop) => {
    expect(parseOpenAiResponse(completion({ content: "x" }, finish), "m").stop).toBe(stop);
  });

  it("calls an answer with tool calls tool_calls whatever the server said (vLLM says stop for tool_choice required)", () => {
    const call = { id: "c", type: "function", function: { name: "f", arguments: "{}" } };
    expect(parseOpenAiResponse(completion({ content: null, tool_calls: [call] }, "stop"), "m").stop).toBe("tool_calls");
  });

  it("counts 0 tokens without usage, uses the requested model without one, and names calls that have no id", () => {
    const body = { choices: [{ message: { content: "", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] }, finish_reason: "tool_calls" }] };
    expect(parseOpenAiResponse(body, "asked")).toEqual({
      model: "asked",
      content: "",
      toolCalls: [{ id: "call_0", name: "f", arguments: '{"a":1}' }],
      stop: "tool_calls",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it("joins content given as parts", () => {
    expect(
      parseOpenAiResponse(completion({ content: [{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }] }, "stop"), "m").content,
    ).toBe("ab");
  });

  it.each([
    ["a string", "not json"],
    ["no choices", { choices: [] }],
    ["an error object", { error: { message: "overloaded" } }],
    ["a message that is not an object", { choices: [{ message: "hi", finish_reason: "stop" }] }],
    ["a tool call without a name", { choices: [{ message: { tool_calls: [{ id: "a", function: { arguments: "{}" } }] }, finish_reason: "tool_calls" }] }],
    ["negative usage", completion({ content: "x" }, "stop", { usage: { prompt_tokens: -1, completion_tokens: 1 } })],
    ["content past the contract's cap", completion({ content: "x".repeat(400_001) }, "stop")],
  ])("refuses %s with LLM_RESPONSE_INVALID", (_name, body) => {
    expect(() => parseOpenAiResponse(body, "m")).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });

  it("never repeats the provider's values in its refusal", () => {
    const body = { choices: [{ message: { content: 12345678 }, finish_reason: "stop" }] };
    expect(() => parseOpenAiResponse(body, "m")).toThrow(/choices\.0\.message\.content/);
    expect(() => parseOpenAiResponse(body, "m")).not.toThrow(/12345678/);
  });
});
