import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { parseAnthropicStream } from "./anthropic-stream.js";

const event = (type: string, value: Record<string, unknown> = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`;

describe("parseAnthropicStream", () => {
  it("reads text and tool_use blocks from their deltas, and the usage", () => {
    const text = [
      event("message_start", {
        message: { id: "m", model: "claude-x", content: [], usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 } },
      }),
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
    expect(() => parseAnthropicStream(text, "m")).toThrow(
      expect.objectContaining({ code: "LLM_UNAVAILABLE", message: expect.stringContaining("overloaded_error") as unknown }),
    );
  });

  it.each([
    [
      "a stream that never stops",
      event("message_start", { message: {} }) + event("content_block_start", { index: 0, content_block: { type: "text", text: "a" } }),
    ],
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
        events.push(
          n % 2 === 0
            ? event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "x" } })
            : event("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "1" } }),
        );
      }
      events.push(event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: size } }), event("message_stop"));
      return events.join("");
    };
    expect(growthRatio((text: string) => parseAnthropicStream(text, "m", Number.POSITIVE_INFINITY), make, 2_000, { maxGrowth: 8 })).toBeLessThanOrEqual(6);
  }, 60_000);
});
