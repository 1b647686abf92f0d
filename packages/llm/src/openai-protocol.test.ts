import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import type { ChatRequest } from "./chat.js";
import { parseOpenAiResponse, parseOpenAiStream, toOpenAiBody } from "./openai-protocol.js";

const tool = { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };

const request: ChatRequest = {
  model: "qwen2.5-coder",
  system: "You review code.",
  messages: [
    { role: "user", content: "Review this." },
    { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }] },
    { role: "tool", toolCallId: "call_1", name: "read_file", content: "const a = 1;" },
    { role: "assistant", content: "Looks fine.", toolCalls: [] },
    { role: "user", content: "Anything else?" },
  ],
  tools: [tool],
  toolChoice: "required",
  maxTokens: 1000,
};

describe("toOpenAiBody", () => {
  it("translates a conversation with tools", () => {
    expect(toOpenAiBody(request)).toEqual({
      model: "qwen2.5-coder",
      messages: [
        { role: "system", content: "You review code." },
        { role: "user", content: "Review this." },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "const a = 1;" },
        { role: "assistant", content: "Looks fine." },
        { role: "user", content: "Anything else?" },
      ],
      tools: [{ type: "function", function: tool }],
      tool_choice: "required",
      max_tokens: 1000,
      stream: false,
    });
  });

  it("leaves out tools and tool_choice without tools, and an empty system prompt", () => {
    const body = toOpenAiBody({ ...request, system: "", tools: [], toolChoice: "none", messages: [{ role: "user", content: "hi" }] });
    expect(body).toEqual({ model: "qwen2.5-coder", messages: [{ role: "user", content: "hi" }], max_tokens: 1000, stream: false });
    expect(Object.keys(body)).not.toContain("tools");
  });

  it.each(["auto", "none"] as const)("passes tool_choice %s", (choice) => {
    expect(toOpenAiBody({ ...request, toolChoice: choice }).tool_choice).toBe(choice);
  });
});

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
    expect(parseOpenAiResponse(completion({ content: [{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }] }, "stop"), "m").content).toBe("ab");
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

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
const delta = (value: Record<string, unknown>, finish: string | null = null) => data({ model: "m-1", choices: [{ index: 0, delta: value, finish_reason: finish }] });

describe("parseOpenAiStream", () => {
  it("joins content fragments and reads the usage chunk", () => {
    const text = delta({ role: "assistant", content: "" }) + delta({ content: "Hel" }) + delta({ content: "lo" }) + delta({}, "stop") + data({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }) + "data: [DONE]\n\n";
    expect(parseOpenAiStream(text, "asked")).toEqual({ model: "m-1", content: "Hello", toolCalls: [], stop: "end", usage: { inputTokens: 3, outputTokens: 2 } });
  });

  it("joins tool-call fragments by index, interleaved", () => {
    const text = [
      delta({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "read_file", arguments: "" } }] }),
      delta({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "grep", arguments: '{"q":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: '"x"}' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
      delta({}, "tool_calls"),
      "data: [DONE]\n\n",
    ].join("");
    const answer = parseOpenAiStream(text, "asked");
    expect(answer.toolCalls).toEqual([
      { id: "call_a", name: "read_file", arguments: '{"path":"a.ts"}' },
      { id: "call_b", name: "grep", arguments: '{"q":"x"}' },
    ]);
    expect(answer.stop).toBe("tool_calls");
    expect(answer.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("takes a stream without [DONE] that finished, and ignores events after [DONE]", () => {
    expect(parseOpenAiStream(delta({ content: "a" }, "length"), "m").stop).toBe("length");
    expect(parseOpenAiStream(delta({ content: "a" }) + "data: [DONE]\n\n" + "data: junk\n\n", "m").content).toBe("a");
  });

  it.each([
    ["a stream that ends unfinished", delta({ content: "a" })],
    ["a chunk that is not JSON", "data: {oops\n\n"],
    ["a tool index past the cap", delta({ tool_calls: [{ index: 64, id: "x", function: { name: "f" } }] }, "tool_calls")],
    ["a tool call never named", delta({ tool_calls: [{ index: 0, id: "x", function: { arguments: "{}" } }] }, "tool_calls")],
  ])("refuses %s", (_name, text) => {
    expect(() => parseOpenAiStream(text, "m")).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });

  it("reports an error event as LLM_UNAVAILABLE", () => {
    expect(() => parseOpenAiStream(data({ error: { message: "overloaded" } }), "m")).toThrow(expect.objectContaining({ code: "LLM_UNAVAILABLE" }));
  });

  it("refuses a stream past its cap", () => {
    expect(() => parseOpenAiStream(delta({ content: "x".repeat(100) }, "stop"), "m", 50)).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });

  it("reads in linear time (4× the events, at most 6× the time)", () => {
    // Many small fragments of content and of two interleaved tool calls, kept within the contract's caps.
    const make = (size: number): string => {
      const events: string[] = [];
      for (let n = 0; n < size; n++) {
        events.push(n % 3 === 0 ? delta({ content: "x" }) : delta({ tool_calls: [{ index: n % 2, id: `c${n % 2}`, function: { name: "f", arguments: "1" } }] }));
      }
      events.push(delta({}, "tool_calls"), "data: [DONE]\n\n");
      return events.join("");
    };
    expect(growthRatio((text: string) => parseOpenAiStream(text, "m", Number.POSITIVE_INFINITY), make, 2_000, { maxGrowth: 8 })).toBeLessThanOrEqual(6);
  }, 30_000);
});
