import { setTimeout as delay } from "node:timers/promises";
import { AppError } from "@reviewbot/core/errors";
import { stripControls } from "@reviewbot/core/strip-controls";
import type { ChatRequest, ChatResponse } from "./chat.js";
import { ANTHROPIC_VERSION, toAnthropicBody } from "./anthropic-request.js";
import { parseAnthropicResponse } from "./anthropic-response.js";
import { parseAnthropicStream } from "./anthropic-stream.js";
import { chatEndpoint, type LlmProtocol } from "./llm-settings.js";
import { toOpenAiBody } from "./openai-request.js";
import { parseOpenAiResponse } from "./openai-response.js";
import { parseOpenAiStream } from "./openai-stream.js";

/** The largest answer body read (8 MiB): a hostile or broken endpoint cannot make the caller hold more. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** The most of an error body read for its message. */
const MAX_ERROR_BYTES = 64 * 1024;
/** The longest excerpt of a provider's error message an error carries. */
const EXCERPT_CHARS = 200;

export interface ModelClientOptions {
  readonly protocol: LlmProtocol;
  /** `REVIEWBOT_LLM_BASE_URL`: the protocol's path is appended ({@link chatEndpoint}). */
  readonly baseUrl: string;
  /** `""` for none: no auth header is sent (Ollama, llama.cpp). */
  readonly apiKey: string;
  /** One attempt's deadline, answer body included. */
  readonly timeoutMs: number;
  /** Attempts per call for network errors, timeouts, 429 and 5xx; default 4. */
  readonly attempts?: number;
  /** The first backoff wait (then doubled each attempt, with jitter); default 1000 ms. */
  readonly backoffMs?: number;
  /** The longest wait between attempts, `Retry-After` included; default 60 s. */
  readonly maxRetryWaitMs?: number;
  /** Default {@link MAX_RESPONSE_BYTES}. */
  readonly maxResponseBytes?: number;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Waits `ms`, cut short (rejecting) when `signal` aborts. Default: a timer. */
  readonly sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** A provider endpoint as a chat model: what the api's broker and the CLI call. */
export interface ModelClient {
  readonly protocol: LlmProtocol;
  /** Where calls go (no secret in it: the settings refuse credentials in the base URL). */
  readonly endpoint: string;
  /**
   * One chat call, retried through transient failures.
   *
   * @throws the caller's abort reason when `signal` aborts (also during a wait between attempts);
   *   AppError `LLM_REFUSED` for a 4xx other than 429, or a redirect (not followed);
   *   `LLM_UNAVAILABLE` once every attempt met a network error, a timeout, a 429 or a 5xx;
   *   `LLM_RESPONSE_INVALID` for a 2xx body that is too large or not the protocol's (not retried
   *   here: the same endpoint tends to answer the same way).
   */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

interface Wire {
  readonly body: (request: ChatRequest) => unknown;
  readonly parse: (json: unknown, model: string) => ChatResponse;
  readonly parseStream: (text: string, model: string, maxChars: number) => ChatResponse;
  readonly headers: (apiKey: string) => Record<string, string>;
}

const WIRES: Readonly<Record<LlmProtocol, Wire>> = {
  openai: {
    body: toOpenAiBody,
    parse: parseOpenAiResponse,
    parseStream: parseOpenAiStream,
    headers: (apiKey): Record<string, string> => (apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` }),
  },
  anthropic: {
    body: toAnthropicBody,
    parse: parseAnthropicResponse,
    parseStream: parseAnthropicStream,
    headers: (apiKey) => ({ ...(apiKey === "" ? {} : { "x-api-key": apiKey }), "anthropic-version": ANTHROPIC_VERSION }),
  },
};

/** Why an attempt failed in a way worth another: what the final error names. */
interface Failure {
  readonly description: string;
  readonly status: number | null;
  /** How long the endpoint asked to be left alone (`Retry-After`), if it said. */
  readonly retryAfterMs: number | null;
}

/**
 * A client of the operator's model endpoint in its protocol (`openai` chat completions or
 * `anthropic` messages), with Node's `fetch` (redirects refused, not followed). The key goes into
 * the auth header only (`Authorization: Bearer` or `x-api-key`), and out of every error: messages
 * name the HTTP status and at most a short, control-stripped excerpt of the provider's own error
 * message, with the key cut out of it should the provider echo it. Network errors, timeouts, 429
 * and 5xx are retried with exponential backoff, or after the endpoint's `Retry-After` (seconds or
 * an HTTP date; `retry-after-ms` too), capped; the caller's signal cuts a wait short. Bodies are
 * read up to a byte cap. An endpoint that streams (SSE) although asked not to is read as a stream.
 *
 * @throws AppError `CONFIG_INVALID` when the key could not go into a header (not printable ASCII).
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const { protocol, apiKey, timeoutMs } = options;
  // Node's fetch repeats an invalid header value in its error: refuse such a key before any call.
  if (!/^[\x21-\x7e]*$/.test(apiKey)) throw new AppError("CONFIG_INVALID", "the model API key must be printable ASCII without spaces");
  const wire = WIRES[protocol];
  const endpoint = chatEndpoint(protocol, options.baseUrl);
  const attempts = Math.max(1, options.attempts ?? 4);
  const backoffMs = options.backoffMs ?? 1000;
  const maxWaitMs = options.maxRetryWaitMs ?? 60_000;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const fetchImpl = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
  const headers = { "content-type": "application/json", accept: "application/json", ...wire.headers(apiKey) };
  const scrub = (text: string): string => (apiKey === "" ? text : text.split(apiKey).join("[redacted]"));

  async function attempt(request: ChatRequest, body: string, signal: AbortSignal | undefined): Promise<ChatResponse | Failure> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const attemptSignal = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
    const unreachable = (error: unknown): Failure => {
      if (signal?.aborted === true) throw signal.reason;
      const description = deadline.aborted ? `no answer within ${timeoutMs} ms` : `unreachable (${describeNetworkError(error, scrub)})`;
      return { description, status: null, retryAfterMs: null };
    };
    let response: Response;
    try {
      response = await fetchImpl(endpoint, { method: "POST", headers, body, redirect: "error", signal: attemptSignal });
    } catch (error) {
      if (signal?.aborted !== true && isRedirectError(error)) {
        throw new AppError("LLM_REFUSED", "the model endpoint answered with a redirect, which is not followed: set REVIEWBOT_LLM_BASE_URL to where it points");
      }
      return unreachable(error);
    }
    const { status } = response;
    if (status >= 200 && status < 300) {
      let read: { text: string; complete: boolean };
      try {
        read = await readCapped(response, maxBytes);
      } catch (error) {
        return unreachable(error);
      }
      if (!read.complete) throw new AppError("LLM_RESPONSE_INVALID", `the model endpoint's answer exceeds ${maxBytes} bytes`, { details: { status } });
      return parseAnswer(wire, response.headers.get("content-type") ?? "", read.text, request.model, maxBytes);
    }
    const excerpt = await errorExcerpt(response, scrub);
    const described = `HTTP ${status}${excerpt === "" ? "" : `: ${excerpt}`}`;
    if (status === 429 || status >= 500) return { description: described, status, retryAfterMs: retryAfterMs(response.headers, Date.now()) };
    throw new AppError("LLM_REFUSED", `the model endpoint refused the call: ${described}${refusalHint(status)}`, { details: { status } });
  }

  return {
    protocol,
    endpoint,
    async complete(request, signal) {
      const body = JSON.stringify(wire.body(request));
      let last: Failure = { description: "no attempt was made", status: null, retryAfterMs: null };
      for (let count = 1; count <= attempts; count++) {
        signal?.throwIfAborted();
        const outcome = await attempt(request, body, signal);
        if (!("description" in outcome)) return outcome;
        last = outcome;
        if (count === attempts) break;
        const backoff = backoffMs * 2 ** (count - 1) * (0.5 + Math.random() / 2);
        try {
          await sleep(Math.min(last.retryAfterMs ?? backoff, maxWaitMs), signal);
        } catch (error) {
          if (signal?.aborted === true) throw signal.reason;
          throw error;
        }
      }
      throw new AppError("LLM_UNAVAILABLE", `the model endpoint failed ${attempts} attempt${attempts === 1 ? "" : "s"}; the last: ${last.description}`, {
        details: { attempts, status: last.status },
      });
    },
  };
}

function parseAnswer(wire: Wire, contentType: string, text: string, model: string, maxChars: number): ChatResponse {
  const head = text.trimStart().slice(0, 6);
  if (/text\/event-stream/i.test(contentType) || head.startsWith("data:") || head.startsWith("event:") || head.startsWith(":")) {
    return wire.parseStream(text, model, maxChars);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw new AppError("LLM_RESPONSE_INVALID", "the model endpoint's 2xx body is not JSON");
  }
  return wire.parse(json, model);
}

/**
 * The body's text, up to `maxBytes` (`complete` false past it: the rest is not read, the stream is
 * cancelled). A declared `Content-Length` past the cap is refused before reading.
 */
async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; complete: boolean }> {
  const body = response.body;
  if (body === null) return { text: "", complete: true };
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await body.cancel().catch(() => undefined);
    return { text: "", complete: false };
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), complete: true };
    const room = maxBytes - total;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString("utf8"), complete: false };
    }
    chunks.push(value);
    total += value.byteLength;
  }
}

/**
 * A short excerpt of the provider's error message: `error.message` (OpenAI, Anthropic, LiteLLM),
 * `error` as text (Ollama, llama.cpp), `message` (vLLM) or `detail`, else the body's text; control
 * characters stripped, whitespace collapsed, the key cut out (before shortening, so no part of it
 * survives a cut), at most {@link EXCERPT_CHARS} characters. `""` when the body cannot be read.
 */
async function errorExcerpt(response: Response, scrub: (text: string) => string): Promise<string> {
  let text: string;
  try {
    text = (await readCapped(response, MAX_ERROR_BYTES)).text;
  } catch {
    return "";
  }
  const message = scrub(stripControls(providerMessage(text)).replace(/\s+/g, " ").trim());
  return message.length > EXCERPT_CHARS ? `${message.slice(0, EXCERPT_CHARS)}…` : message;
}

function providerMessage(text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return text;
  }
  if (typeof json !== "object" || json === null) return text;
  const record = json as { error?: unknown; message?: unknown; detail?: unknown };
  const nested = typeof record.error === "object" && record.error !== null ? (record.error as { message?: unknown }).message : undefined;
  for (const candidate of [nested, record.error, record.message, record.detail]) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate;
  }
  return text;
}

function refusalHint(status: number): string {
  if (status === 401 || status === 403) return " (check the key: REVIEWBOT_LLM_API_KEY_FILE)";
  if (status === 404) return " (check REVIEWBOT_LLM_BASE_URL, REVIEWBOT_LLM_PROTOCOL and the model name)";
  return "";
}

/**
 * How long `Retry-After` asks to wait: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or
 * as an HTTP date (a past date: no wait). Null when neither is there or readable.
 */
export function retryAfterMs(headers: Headers, now: number): number | null {
  const milliseconds = headers.get("retry-after-ms")?.trim() ?? "";
  if (/^\d{1,9}(?:\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds));
  const value = headers.get("retry-after")?.trim() ?? "";
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** `fetch failed: connect ECONNREFUSED …`: the error and its cause's message (fetch puts the reason there), the key cut out. */
function describeNetworkError(error: unknown, scrub: (text: string) => string): string {
  if (!(error instanceof Error)) return "an unknown error";
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return scrub(stripControls(`${error.message}${cause}`)).slice(0, EXCERPT_CHARS);
}

function isRedirectError(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof Error && /redirect/i.test(error.cause.message);
}
