import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import type { ChatRequest } from "./chat.js";
import { parseAnthropicResponse, parseAnthropicStream, toAnthropicBody } from "./anthropic-protocol.js";

const tool = { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } } } };

const request: ChatRequest = {
  model: "claude-sonnet-4-5",
  system: "You review code.",
  messages: [
    { role: "user", content: "Review this." },
    {
      role: "assistant",
      content: "Reading two files.",
      toolCalls: [
        { id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' },
        { id: "toolu_2", name: "read_file", arguments: "not json" },
      ],
    },
    { role: "tool", toolCallId: "toolu_1", name: "read_file", content: "const a = 1;" },
    { role: "tool", toolCallId: "toolu_2", name: "read_file", content: "" },
    { role: "user", content: "Also check b." },
    { role: "assistant", content: "", toolCalls: [] },
    { role: "user", content: "Well?" },
  ],
  tools: [tool],
  toolChoice: "required",
  maxTokens: 2000,
};

describe("toAnthropicBody", () => {
  it("translates a conversation with tools, merging tool results into one user turn", () => {
    expect(toAnthropicBody(request)).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 2000,
      system: "You review code.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Review this." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading two files." },
            { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
            { type: "tool_use", id: "toolu_2", name: "read_file", input: { _unparsed_arguments: "not json" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "const a = 1;" },
            { type: "tool_result", tool_use_id: "toolu_2" },
            { type: "text", text: "Also check b." },
            // The empty assistant message in between is left out: its neighbours join.
            { type: "text", text: "Well?" },
          ],
        },
      ],
      tools: [{ name: "read_file", description: "Reads a file.", input_schema: tool.parameters }],
      tool_choice: { type: "any" },
      stream: false,
    });
  });

  it.each([
    ["auto", "auto"],
    ["none", "none"],
  ] as const)("maps toolChoice %s to %s", (choice, type) => {
    expect(toAnthropicBody({ ...request, toolChoice: choice }).tool_choice).toEqual({ type });
  });

  it("leaves out tools, tool_choice and an empty system prompt", () => {
    const body = toAnthropicBody({ ...request, system: "", tools: [], messages: [{ role: "user", content: "hi" }] });
    expect(body).toEqual({ model: "claude-sonnet-4-5", max_tokens: 2000, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false });
  });
});

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

const event = (type: string, value: Record<string, unknown> = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`;

describe("parseAnthropicStream", () => {
  it("reads text and tool_use blocks from their deltas, and the usage", () => {
    const text = [
      event("message_start", { message: { id: "m", model: "claude-x", content: [], usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 } } }),
      event("ping"),
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Look" } }),
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "ing." } }),
      event("content_block_stop", { index: 0 }),
      event("content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} } }),
      event("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "" } }),
      event("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '{"path":' } }),
      event("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '"a.ts"}' } }),
      event("content_block_stop", { index: 1 }),
      event("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 15 } }),
      event("message_stop"),
    ].join("");
    expect(parseAnthropicStream(text, "asked")).toEqual({
      model: "claude-x",
      content: "Looking.",
      toolCalls: [{ id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
      stop: "tool_calls",
      usage: { inputTokens: 30, outputTokens: 15 },
    });
  });

  it("serialises a tool_use start input when no delta came", () => {
    const text = [
      event("content_block_start", { index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: { a: 1 } } }),
      event("message_delta", { delta: { stop_reason: "tool_use" } }),
    ].join("");
    expect(parseAnthropicStream(text, "m").toolCalls).toEqual([{ id: "t", name: "f", arguments: '{"a":1}' }]);
  });

  it("reports an error event as LLM_UNAVAILABLE naming its type", () => {
    const text = event("message_start", { message: {} }) + event("error", { error: { type: "overloaded_error", message: "Overloaded" } });
    expect(() => parseAnthropicStream(text, "m")).toThrow(expect.objectContaining({ code: "LLM_UNAVAILABLE", message: expect.stringContaining("overloaded_error") as unknown }));
  });

  it.each([
    ["a stream that never stops", event("message_start", { message: {} }) + event("content_block_start", { index: 0, content_block: { type: "text", text: "a" } })],
    ["a delta for a block never started", event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "a" } }) + event("message_stop")],
    ["a block started twice", event("content_block_start", { index: 0, content_block: { type: "text" } }).repeat(2) + event("message_stop")],
    ["a block index past the cap", event("content_block_start", { index: 256, content_block: { type: "text" } }) + event("message_stop")],
    ["a tool_use without an id", event("content_block_start", { index: 0, content_block: { type: "tool_use", name: "f" } }) + event("message_stop")],
  ])("refuses %s", (_name, text) => {
    expect(() => parseAnthropicStream(text, "m")).toThrow(expect.objectContaining({ code: "LLM_RESPONSE_INVALID" }));
  });

  it("reads in linear time (4× the events, at most 6× the time)", () => {
    const make = (size: number): string => {
      const events = [
        event("message_start", { message: { model: "m", usage: { input_tokens: 1 } } }),
        event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        event("content_block_start", { index: 1, content_block: { type: "tool_use", id: "t", name: "f", input: {} } }),
      ];
      for (let n = 0; n < size; n++) {
        events.push(n % 2 === 0 ? event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "x" } }) : event("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "1" } }));
      }
      events.push(event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: size } }), event("message_stop"));
      return events.join("");
    };
    expect(growthRatio((text: string) => parseAnthropicStream(text, "m", Number.POSITIVE_INFINITY), make, 2_000, { maxGrowth: 8 })).toBeLessThanOrEqual(6);
  }, 30_000);
});
