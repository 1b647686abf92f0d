import { setTimeout as delay } from "node:timers/promises";
import { AppError } from "@reviewbot/core/errors";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import { chatEndpoint, type LlmProtocol } from "./llm-settings.js";
import { attempt, type AttemptSettings, type Failure } from "./model-attempt.js";
import { WIRES } from "./protocol-wires.js";

/** The largest answer body read (8 MiB): a hostile or broken endpoint cannot make the caller hold more. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const DEFAULT_ATTEMPTS = 4;
const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/**
 * The longest one call of a client with the default attempts and waits can take: every attempt
 * running to `timeoutMs`, and the longest wait before each retry. The broker's in-flight marks
 * last this long, so that an api that dies mid-call frees them soon after the call would have ended.
 */
export function longestCallMs(timeoutMs: number): number {
  return DEFAULT_ATTEMPTS * timeoutMs + (DEFAULT_ATTEMPTS - 1) * DEFAULT_MAX_RETRY_WAIT_MS;
}

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
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const backoffMs = options.backoffMs ?? 1000;
  const maxWaitMs = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
  const settings: AttemptSettings = {
    wire,
    endpoint,
    headers: { "content-type": "application/json", accept: "application/json", ...wire.headers(apiKey) },
    timeoutMs,
    maxBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    fetch: options.fetch ?? fetch,
    scrub: (text) => (apiKey === "" ? text : text.split(apiKey).join("[redacted]")),
  };

  return {
    protocol,
    endpoint,
    async complete(request, signal) {
      const body = JSON.stringify(wire.body(request));
      let last: Failure = { description: "no attempt was made", status: null, retryAfterMs: null };
      for (let count = 1; count <= attempts; count++) {
        signal?.throwIfAborted();
        const outcome = await attempt(settings, request, body, signal);
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
