import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChatRequest } from "@reviewbot/contracts/chat";
import { createModelClient, MAX_RESPONSE_BYTES, type ModelClientOptions } from "@reviewbot/llm/model-client";
import { probeEndpoint } from "@reviewbot/llm/probe-endpoint";
import { reply, startModelStandIn, type ModelProtocol, type ModelStandIn } from "@reviewbot/llm/testing/model-stand-in";

const KEY = "sk-standin-9f8e7d6c5b4a3210";
const AUTH_HEADERS = new Set(["authorization", "x-api-key"]);

const readFile = {
  name: "read_file",
  description: "Reads a file of the checkout.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const ask: ChatRequest = {
  model: "stand-in-model",
  system: "You review code.",
  messages: [{ role: "user", content: "Review src/a.ts." }],
  tools: [readFile],
  toolChoice: "auto",
  maxTokens: 512,
};

/** Everything an error carries that could reach a log: message, cause chain, details. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let current = error; current !== undefined && current !== null; current = (current as { cause?: unknown }).cause) {
    const described = current instanceof Error ? `${current.name}: ${current.message}` : JSON.stringify(current);
    parts.push(described, JSON.stringify(current), JSON.stringify((current as { details?: unknown }).details ?? null));
    if (!(current instanceof Error)) break;
  }
  return parts.join("\n");
}

describe.each<ModelProtocol>(["openai", "anthropic"])("the model client against the %s stand-in", (protocol) => {
  let standIn: ModelStandIn;
  beforeAll(async () => {
    standIn = await startModelStandIn({ apiKey: KEY });
  });
  afterAll(async () => {
    await standIn.close();
  });
  beforeEach(() => {
    standIn.script([]);
    standIn.setLatency(0);
  });

  const client = (options: Partial<ModelClientOptions> = {}) =>
    createModelClient({ protocol, baseUrl: standIn.url(protocol), apiKey: KEY, timeoutMs: 10_000, backoffMs: 10, ...options });
  const since = () => {
    const start = standIn.requests.length;
    return () => standIn.requests.slice(start);
  };

  it("runs a tool round trip", async () => {
    const recorded = since();
    standIn.script([reply.toolCall("read_file", { path: "src/a.ts" }), reply.text("One finding.")]);
    const first = await client().complete(ask);
    expect(first).toMatchObject({ model: "stand-in-model", content: "", stop: "tool_calls" });
    expect(first.toolCalls).toEqual([{ id: expect.any(String) as unknown, name: "read_file", arguments: '{"path":"src/a.ts"}' }]);
    const [call] = first.toolCalls;
    if (call === undefined) throw new Error("no tool call");
    const second = await client().complete({
      ...ask,
      messages: [
        ...ask.messages,
        { role: "assistant", content: first.content, toolCalls: first.toolCalls },
        { role: "tool", toolCallId: call.id, name: call.name, content: "export const a = 1;" },
      ],
    });
    expect(second).toMatchObject({ content: "One finding.", toolCalls: [], stop: "end" });
    expect(second.usage.inputTokens).toBeGreaterThan(0);
    expect(second.usage.outputTokens).toBeGreaterThan(0);

    const [, followUp] = recorded();
    const body = followUp?.json as { messages: unknown[]; stream: boolean };
    expect(body.stream).toBe(false);
    if (protocol === "openai") {
      expect(followUp?.path).toBe("/v1/chat/completions");
      expect(body.messages.slice(-2)).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: call.id, type: "function", function: { name: "read_file", arguments: '{"path":"src/a.ts"}' } }],
        },
        { role: "tool", tool_call_id: call.id, content: "export const a = 1;" },
      ]);
    } else {
      expect(followUp?.path).toBe("/v1/messages");
      expect(followUp?.headers["anthropic-version"]).toBe("2023-06-01");
      expect(body.messages.slice(-2)).toEqual([
        { role: "assistant", content: [{ type: "tool_use", id: call.id, name: "read_file", input: { path: "src/a.ts" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "export const a = 1;" }] },
      ]);
    }
  });

  it("reads a text answer and its usage", async () => {
    standIn.script([reply.text("Looks good.", { usage: { input: 120, output: 7 } })]);
    await expect(client().complete(ask)).resolves.toEqual({
      model: "stand-in-model",
      content: "Looks good.",
      toolCalls: [],
      stop: "end",
      usage: { inputTokens: 120, outputTokens: 7 },
    });
  });

  it("honours Retry-After on a 429", async () => {
    const recorded = since();
    standIn.script([reply.status(429, { retryAfter: "1" }), reply.text("after the wait")]);
    await expect(client().complete(ask)).resolves.toMatchObject({ content: "after the wait" });
    const [limited, retried] = recorded();
    expect(limited?.status).toBe(429);
    // The backoff alone would be ~10 ms: only the header explains a wait of a second.
    expect((retried?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it("cuts a Retry-After wait short when the caller aborts", async () => {
    const recorded = since();
    standIn.script([reply.status(429, { retryAfter: "30" }), reply.text("never asked")]);
    const controller = new AbortController();
    const reason = new Error("review cancelled");
    setTimeout(() => {
      controller.abort(reason);
    }, 200);
    const started = Date.now();
    await expect(client().complete(ask, controller.signal)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(recorded()).toHaveLength(1);
  });

  it("retries a 500, then succeeds", async () => {
    const recorded = since();
    standIn.script([reply.status(500), reply.status(502), reply.text("recovered")]);
    await expect(client().complete(ask)).resolves.toMatchObject({ content: "recovered" });
    expect(recorded().map((request) => request.status)).toEqual([500, 502, 200]);
  });

  it("gives up after its attempts on a 500 that lasts, as LLM_UNAVAILABLE", async () => {
    const recorded = since();
    standIn.script(() => reply.status(500, { errorMessage: "upstream exploded" }));
    const error = await client({ attempts: 3 })
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "LLM_UNAVAILABLE",
      message: "the model endpoint failed 3 attempts; the last: HTTP 500: upstream exploded",
      details: { attempts: 3, status: 500 },
    });
    expect(recorded()).toHaveLength(3);
  });

  it("takes a 401 as LLM_REFUSED, without retrying", async () => {
    const recorded = since();
    const error = await client({ apiKey: "sk-wrong-key" })
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "LLM_REFUSED",
      message: expect.stringMatching(/^the model endpoint refused the call: HTTP 401: invalid api key/) as unknown,
      details: { status: 401 },
    });
    expect(recorded()).toHaveLength(1);
  });

  it("reports an answer cut by the output cap as length", async () => {
    standIn.script([reply.length("The first half of")]);
    await expect(client().complete(ask)).resolves.toMatchObject({ content: "The first half of", stop: "length" });
  });

  it("reads an empty answer", async () => {
    standIn.script([reply.empty()]);
    await expect(client().complete(ask)).resolves.toMatchObject({ content: "", toolCalls: [], stop: "end" });
  });

  it("passes a tool call leaked as text through as text (the loop decides)", async () => {
    standIn.script([reply.leakedToolCall("read_file", { path: "a.ts" })]);
    const answer = await client().complete(ask);
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toBe('<tool_call>{"name":"read_file","arguments":{"path":"a.ts"}}</tool_call>');
  });

  it("reads answers streamed although not asked for", async () => {
    const long = "A streamed answer, long enough to come in several pieces. ".repeat(20);
    standIn.script([
      reply.text(long, { stream: true, usage: { input: 50, output: 30 } }),
      reply.toolCalls(
        [
          { name: "read_file", arguments: { path: "src/a.ts" } },
          { name: "read_file", arguments: { path: "src/b.ts" } },
        ],
        { stream: true },
      ),
      reply.length("cut", { stream: true }),
    ]);
    await expect(client().complete(ask)).resolves.toEqual({
      model: "stand-in-model",
      content: long,
      toolCalls: [],
      stop: "end",
      usage: { inputTokens: 50, outputTokens: 30 },
    });
    const tools = await client().complete(ask);
    expect(tools.stop).toBe("tool_calls");
    expect(tools.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ["read_file", '{"path":"src/a.ts"}'],
      ["read_file", '{"path":"src/b.ts"}'],
    ]);
    await expect(client().complete(ask)).resolves.toMatchObject({ content: "cut", stop: "length" });
  });

  it("refuses an answer past the byte cap, declared or streamed", async () => {
    const huge = "x".repeat(MAX_RESPONSE_BYTES + 1024);
    standIn.script([reply.raw(JSON.stringify({ content: huge })), reply.text(huge, { stream: true })]);
    const invalid = { code: "LLM_RESPONSE_INVALID", message: `the model endpoint's answer exceeds ${MAX_RESPONSE_BYTES} bytes` };
    await expect(client().complete(ask)).rejects.toMatchObject(invalid);
    await expect(client().complete(ask)).rejects.toMatchObject(invalid);
  });

  it("gives up on a slow endpoint at the deadline of each attempt", async () => {
    standIn.setLatency(1000);
    standIn.script(() => reply.text("too late"));
    const started = Date.now();
    await expect(client({ timeoutMs: 200, attempts: 2 }).complete(ask)).rejects.toMatchObject({
      code: "LLM_UNAVAILABLE",
      message: "the model endpoint failed 2 attempts; the last: no answer within 200 ms",
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("puts the key in the auth header only", async () => {
    const recorded = since();
    standIn.script([reply.toolCall("read_file", { path: "a.ts" }), reply.text("done", { stream: true }), reply.status(500)]);
    await client().complete(ask);
    await client().complete(ask);
    await client({ attempts: 1 })
      .complete(ask)
      .catch(() => undefined);
    const requests = recorded();
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.bodyText).not.toContain(KEY);
      expect(request.path).not.toContain(KEY);
      for (let at = 0; at < request.rawHeaders.length; at += 2) {
        const [name = "", value = ""] = request.rawHeaders.slice(at, at + 2);
        if (!AUTH_HEADERS.has(name.toLowerCase())) expect(value, name).not.toContain(KEY);
      }
      if (protocol === "openai") {
        expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(request.headers["x-api-key"]).toBeUndefined();
      } else {
        expect(request.headers["x-api-key"]).toBe(KEY);
        expect(request.headers.authorization).toBeUndefined();
      }
    }
  });

  it("keeps the key out of every error, even when the endpoint echoes it", async () => {
    standIn.script(() => reply.status(403, { errorMessage: `Key ${KEY} is not allowed to use stand-in-model` }));
    const refused = await client()
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: "LLM_REFUSED", message: expect.stringContaining("Key [redacted] is not allowed") as unknown });
    expect(errorText(refused)).not.toContain(KEY);

    standIn.script(() => reply.status(503, { errorMessage: `overloaded; your key was ${KEY}` }));
    const unavailable = await client({ attempts: 2 })
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(unavailable).toMatchObject({ code: "LLM_UNAVAILABLE" });
    expect(errorText(unavailable)).not.toContain(KEY);

    standIn.script(() => reply.raw(`not json, but the key: ${KEY}`, "text/plain", { status: 400 }));
    const raw = await client()
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(raw).toMatchObject({ code: "LLM_REFUSED", message: expect.stringContaining("[redacted]") as unknown });
    expect(errorText(raw)).not.toContain(KEY);

    // And an unreachable endpoint: the network error's text has nothing of the request's headers.
    const unreachable = await createModelClient({ protocol, baseUrl: "http://127.0.0.1:9", apiKey: KEY, timeoutMs: 2000, attempts: 1 })
      .complete(ask)
      .catch((caught: unknown) => caught);
    expect(unreachable).toMatchObject({ code: "LLM_UNAVAILABLE", message: expect.stringContaining("unreachable") as unknown });
    expect(errorText(unreachable)).not.toContain(KEY);
  });

  it("probes the endpoint: reachable, a tool round trip, a final answer", async () => {
    standIn.script([reply.text("ready"), reply.toolCall("echo_number", { n: 42 }), reply.text("It returned 42.")]);
    const report = await probeEndpoint(client(), "stand-in-model", { contextTokens: 32_768, baseUrl: standIn.url(protocol) });
    expect(report.steps.map((step) => [step.name, step.ok, step.detail])).toEqual([
      ["plain call", true, expect.stringMatching(/^answered \(model stand-in-model, stop end/) as unknown],
      ["tool call", true, expect.stringMatching(/^called echo_number with n = 42 /) as unknown],
      ["tool result", true, expect.stringMatching(/^answered in text/) as unknown],
    ]);
    expect(report.ok).toBe(true);
  });

  it("probes an endpoint that leaks tool calls as text", async () => {
    standIn.script([reply.text("ready"), reply.leakedToolCall("echo_number", { n: 42 })]);
    const report = await probeEndpoint(client(), "stand-in-model");
    expect(report.ok).toBe(false);
    expect(report.steps[1]?.detail).toMatch(/wrote its tool call as text/);
  });
});

describe("the model client without a key (Ollama, llama.cpp)", () => {
  it("sends no auth header", async () => {
    const standIn = await startModelStandIn();
    try {
      standIn.script([reply.text("hi"), reply.text("hi")]);
      await createModelClient({ protocol: "openai", baseUrl: standIn.url("openai"), apiKey: "", timeoutMs: 5000 }).complete(ask);
      await createModelClient({ protocol: "anthropic", baseUrl: standIn.url("anthropic"), apiKey: "", timeoutMs: 5000 }).complete(ask);
      const [openai, anthropic] = standIn.modelRequests();
      expect(openai?.headers.authorization).toBeUndefined();
      expect(anthropic?.headers["x-api-key"]).toBeUndefined();
      expect(anthropic?.headers["anthropic-version"]).toBe("2023-06-01");
    } finally {
      await standIn.close();
    }
  });
});
