import { describe, expect, it } from "vitest";
import type { ChatRequest } from "@reviewbot/contracts/chat";
import { createModelClient, type ModelClientOptions } from "./model-client.js";

const KEY = "sk-unit-secret-0123456789";
const request: ChatRequest = { model: "m", system: "", messages: [{ role: "user", content: "hi" }], tools: [], toolChoice: "auto", maxTokens: 10 };
const ok = { model: "m", choices: [{ message: { content: "hello" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1 } };

/** A client whose fetch answers from `answers` in turn (a Response, or an error to throw), recording each call's init. */
function scripted(answers: (Response | Error)[], options: Partial<ModelClientOptions> = {}) {
  const calls: RequestInit[] = [];
  const waits: number[] = [];
  const client = createModelClient({
    protocol: "openai",
    baseUrl: "http://model.test/v1",
    apiKey: KEY,
    timeoutMs: 5000,
    fetch: (_url, init) => {
      calls.push(init ?? {});
      const next = answers.shift() ?? new Error("no more answers");
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...options,
  });
  return { client, calls, waits };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const networkError = () => new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });

describe("createModelClient (unit)", () => {
  it("retries network errors with doubling backoff, then succeeds", async () => {
    const { client, calls, waits } = scripted([networkError(), networkError(), json(200, ok)], { backoffMs: 100 });
    await expect(client.complete(request)).resolves.toMatchObject({ content: "hello" });
    expect(calls).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it("names the last failure after the attempts, with no cause that could carry a header", async () => {
    const { client, calls } = scripted([networkError(), networkError()], { attempts: 2 });
    const error = await client.complete(request).catch((caught: unknown) => caught);
    expect(calls).toHaveLength(2);
    expect(error).toMatchObject({
      code: "LLM_UNAVAILABLE",
      message: expect.stringContaining("ECONNREFUSED") as unknown,
      details: { attempts: 2, status: null },
    });
    expect((error as Error).cause).toBeUndefined();
  });

  it("caps a Retry-After wait", async () => {
    const { client, waits } = scripted([json(429, {}, { "retry-after": "3600" }), json(200, ok)], { maxRetryWaitMs: 60_000 });
    await client.complete(request);
    expect(waits).toEqual([60_000]);
  });

  it("refuses a redirect without following it or retrying", async () => {
    const redirect = new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
    const { client, calls } = scripted([redirect]);
    await expect(client.complete(request)).rejects.toMatchObject({ code: "LLM_REFUSED", message: expect.stringContaining("redirect") as unknown });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.redirect).toBe("error");
  });

  it("gives up on an attempt at its deadline, and retries it", async () => {
    let attempt = 0;
    const client = createModelClient({
      protocol: "openai",
      baseUrl: "http://model.test/v1",
      apiKey: "",
      timeoutMs: 50,
      attempts: 2,
      sleep: () => Promise.resolve(),
      fetch: (_url, init) =>
        new Promise((resolve, reject) => {
          attempt++;
          if (attempt === 2) resolve(json(200, ok));
          init?.signal?.addEventListener("abort", () => {
            reject(init.signal?.reason as Error);
          });
        }),
    });
    await expect(client.complete(request)).resolves.toMatchObject({ content: "hello" });
    expect(attempt).toBe(2);
  });

  it("throws the caller's reason when aborted during a wait, without another attempt", async () => {
    const controller = new AbortController();
    const reason = new Error("review cancelled");
    const { client, calls } = scripted([json(503, {}), json(200, ok)], {
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => {
            reject(new Error("aborted wait"));
          });
          controller.abort(reason);
        }),
    });
    await expect(client.complete(request, controller.signal)).rejects.toBe(reason);
    expect(calls).toHaveLength(1);
  });

  it("sends no auth header without a key, and refuses a key that cannot go into a header", async () => {
    const { client, calls } = scripted([json(200, ok)], { apiKey: "" });
    await client.complete(request);
    expect(Object.keys(calls[0]?.headers ?? {})).not.toContain("authorization");
    const bad = `${KEY}\r\nx-injected: 1`;
    expect(() => scripted([], { apiKey: bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => scripted([], { apiKey: bad })).not.toThrow(KEY);
  });

  it("reads an answer that streams although asked not to, sniffed without a content type", async () => {
    const body = 'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const { client } = scripted([new Response(body, { status: 200 })]);
    await expect(client.complete(request)).resolves.toMatchObject({ content: "hi", stop: "end" });
  });

  it("refuses a 2xx that is not JSON, without retrying", async () => {
    const { client, calls } = scripted([new Response("<html>gateway</html>", { status: 200, headers: { "content-type": "text/html" } })]);
    await expect(client.complete(request)).rejects.toMatchObject({ code: "LLM_RESPONSE_INVALID" });
    expect(calls).toHaveLength(1);
  });

  it("excerpts a provider's message shortly, without controls or the key", async () => {
    const message = `\u001b[31mbad key ${KEY}\u202e ${"x".repeat(500)}`;
    const { client } = scripted([json(401, { error: { message } })]);
    const error = (await client.complete(request).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/^the model endpoint refused the call: HTTP 401: \[31mbad key \[redacted\] x+… \(check the key/);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("\u001b");
    expect(error.message).not.toContain("\u202e");
    expect(error.message.length).toBeLessThan(320);
  });
});
