import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { parseOpenAiStream } from "./openai-stream.js";

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
const delta = (value: Record<string, unknown>, finish: string | null = null) =>
  data({ model: "m-1", choices: [{ index: 0, delta: value, finish_reason: finish }] });

describe("parseOpenAiStream", () => {
  it("joins content fragments and reads the usage chunk", () => {
    const text =
      delta({ role: "assistant", content: "" }) +
      delta({ content: "Hel" }) +
      delta({ content: "lo" }) +
      delta({}, "stop") +
      data({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }) +
      "data: [DONE]\n\n";
    expect(parseOpenAiStream(text, "asked")).toEqual({
      model: "m-1",
      content: "Hello",
      toolCalls: [],
      stop: "end",
      usage: { inputTokens: 3, outputTokens: 2 },
    });
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
        events.push(
          n % 3 === 0 ? delta({ content: "x" }) : delta({ tool_calls: [{ index: n % 2, id: `c${n % 2}`, function: { name: "f", arguments: "1" } }] }),
        );
      }
      events.push(delta({}, "tool_calls"), "data: [DONE]\n\n");
      return events.join("");
    };
    expect(growthRatio((text: string) => parseOpenAiStream(text, "m", Number.POSITIVE_INFINITY), make, 2_000, { maxGrowth: 8 })).toBeLessThanOrEqual(6);
  }, 60_000);
});
