import { describe, expect, it } from "vitest";
import { parseAnthropicResponse } from "./anthropic-response.js";

const message = (content: unknown[], stop: string | null, usage: Record<string, unknown> | undefined = { input_tokens: 10, output_tokens: 4 }) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-x",
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage,
  container: null,
});

describe("parseAnthropicResponse", () => {
  it("joins text blocks, reads tool_use blocks and drops other blocks", () => {
    const body = message(
      [
        { type: "thinking", thinking: "hmm", signature: "s" },
        { type: "text", text: "Let me look. ", citations: null },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
        { type: "text", text: "Done." },
      ],
      "tool_use",
      { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, service_tier: "standard" },
    );
    expect(parseAnthropicResponse(body, "asked")).toEqual({
      model: "claude-x",
      content: "Let me look. Done.",
      toolCalls: [{ id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
      stop: "tool_calls",
      usage: { inputTokens: 130, outputTokens: 4 },
    });
  });

  it.each([
    ["end_turn", "end"],
    ["stop_sequence", "end"],
    ["tool_use", "tool_calls"],
    ["max_tokens", "length"],
    ["refusal", "other"],
    [null, "other"],
  ] as const)("maps stop_reason %s to %s", (reason, stop) => {
    expect(parseAnthropicResponse(message([{ type: "text", text: "x" }], reason), "m").stop).toBe(stop);
  });

  it("counts 0 tokens without usage and uses the requested model without one", () => {
    expect(parseAnthropicResponse({ content: [], stop_reason: "end_turn" }, "asked")).toEqual({
      model: "asked",
      content: "",
      toolCalls: [],
      stop: "end",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it.each([
    ["an error object", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
    ["no content", { stop_reason: "end_turn" }],
    ["a text block without text", message([{ type: "text" }], "end_turn")],
    ["a tool_use block without an id", message([{ type: "tool_use", name: "f", input: {} }], "tool_use")],
  ])("refuses %s with LLM_RESPONSE_INVALID", (_name, body) => {
    expect(() => parseAnthropicResponse(body, "m")).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });
});
