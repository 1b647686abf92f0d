import { describe, expect, it } from "vitest";
import { AppError } from "@reviewbot/core/errors";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import { probeEndpoint } from "./probe-endpoint.js";

const usage = { inputTokens: 10, outputTokens: 2 };
const text = (content: string, stop: ChatResponse["stop"] = "end"): ChatResponse => ({ model: "m", content, toolCalls: [], stop, usage });
const called = (name: string, args: string): ChatResponse => ({
  model: "m",
  content: "",
  toolCalls: [{ id: "call_1", name, arguments: args }],
  stop: "tool_calls",
  usage,
});

/** A model answering from `answers` in turn (an answer, or an error to throw), recording the requests. */
function model(answers: (ChatResponse | Error)[]) {
  const requests: ChatRequest[] = [];
  return {
    requests,
    complete: (request: ChatRequest) => {
      requests.push(request);
      const next = answers.shift() ?? new Error("no more answers");
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
}

describe("probeEndpoint", () => {
  it("passes a model that answers, calls the tool and answers its result", async () => {
    const client = model([text("ready"), called("echo_number", '{"n":42}'), text("It returned 42.")]);
    const report = await probeEndpoint(client, "m", { contextTokens: 32_768, baseUrl: "https://api.openai.com/v1" });
    expect(report.ok).toBe(true);
    expect(report.steps.map((step) => [step.name, step.ok])).toEqual([
      ["plain call", true],
      ["tool call", true],
      ["tool result", true],
    ]);
    expect(report.steps[1]?.detail).toMatch(/^called echo_number with n = 42 /);
    expect(report.notes).toEqual([expect.stringContaining("context window: 32768 tokens as configured")]);
    // The tool round: offered with toolChoice required, then its result sent back under the call's id.
    expect(client.requests[1]).toMatchObject({ toolChoice: "required", tools: [{ name: "echo_number" }] });
    expect(client.requests[2]?.messages.slice(1)).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "echo_number", arguments: '{"n":42}' }] },
      { role: "tool", toolCallId: "call_1", name: "echo_number", content: "42" },
    ]);
  });

  it("skips the tool steps when the endpoint is not reachable, naming the error", async () => {
    const report = await probeEndpoint(model([new AppError("LLM_UNAVAILABLE", "the model endpoint failed 4 attempts; the last: HTTP 503")]), "m");
    expect(report.ok).toBe(false);
    expect(report.steps).toEqual([
      {
        name: "plain call",
        ok: false,
        skipped: false,
        ms: expect.any(Number) as unknown,
        detail: "LLM_UNAVAILABLE: the model endpoint failed 4 attempts; the last: HTTP 503",
      },
      { name: "tool call", ok: false, skipped: true, ms: 0, detail: "skipped: the plain call failed" },
      { name: "tool result", ok: false, skipped: true, ms: 0, detail: "skipped: the plain call failed" },
    ]);
  });

  it.each([
    [
      "a tool call written as text",
      text('<tool_call>{"name":"echo_number","arguments":{"n":42}}</tool_call>'),
      /wrote its tool call as text: the server does not parse/,
    ],
    ["an answer without a call", text("42"), /answered without calling the tool although it had to \(stop: end\)/],
    ["another tool", called("read_file", "{}"), /called "read_file", not echo_number/],
    ["arguments that are not JSON", called("echo_number", "{n: 42"), /arguments are not valid JSON/],
    ["arguments without the number", called("echo_number", '{"n":"42"}'), /have no number n/],
  ])("fails the tool call on %s", async (_name, answer, reason) => {
    const report = await probeEndpoint(model([text("ready"), answer]), "m");
    expect(report.ok).toBe(false);
    expect(report.steps[1]).toMatchObject({ name: "tool call", ok: false, skipped: false, detail: expect.stringMatching(reason) as unknown });
    expect(report.steps[2]).toMatchObject({ skipped: true });
  });

  it.each([
    ["another tool call", called("echo_number", '{"n":42}'), /another tool call instead of text/],
    ["no text", text("", "length"), /no text \(stop: length\)/],
  ])("fails the tool result on %s", async (_name, answer, reason) => {
    const report = await probeEndpoint(model([text("ready"), called("echo_number", '{"n":42}'), answer]), "m");
    expect(report.ok).toBe(false);
    expect(report.steps[2]).toMatchObject({ name: "tool result", ok: false, detail: expect.stringMatching(reason) as unknown });
  });

  it("notes Ollama's server-side context window", async () => {
    const report = await probeEndpoint(model([new Error("down")]), "m", { contextTokens: 65_536, baseUrl: "http://localhost:11434/v1" });
    expect(report.notes[1]).toMatch(/looks like Ollama.*num_ctx.*at least 65536/);
  });

  it("throws the caller's abort reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(probeEndpoint(model([new Error("aborted")]), "m", { signal: controller.signal })).rejects.toBe(reason);
  });
});
