import { AppError } from "@reviewbot/core/errors";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import { describeNetworkError, errorExcerpt, isRedirectError, refusalHint } from "./endpoint-errors.js";
import { parseAnswer, type Wire } from "./protocol-wires.js";
import { readCapped } from "./read-capped.js";
import { retryAfterMs } from "./retry-after.js";

/** Why an attempt failed in a way worth another: what the final error names. */
export interface Failure {
  readonly description: string;
  readonly status: number | null;
  /** How long the endpoint asked to be left alone (`Retry-After`), if it said. */
  readonly retryAfterMs: number | null;
}

/** What every attempt of one client shares. */
export interface AttemptSettings {
  readonly wire: Wire;
  readonly endpoint: string;
  /** The content type, `accept` and the protocol's auth headers. */
  readonly headers: Record<string, string>;
  /** One attempt's deadline, answer body included. */
  readonly timeoutMs: number;
  /** The most of an answer body read. */
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
  /** Cuts the key out of a text an error carries. */
  readonly scrub: (text: string) => string;
}

/**
 * One POST of `body` to the endpoint within the attempt's deadline (redirects refused): the answer,
 * or the {@link Failure} of a network error, a timeout, a 429 or a 5xx, worth another attempt.
 *
 * @throws the caller's abort reason when `signal` aborts; AppError `LLM_REFUSED` for a redirect or
 *   a 4xx other than 429; `LLM_RESPONSE_INVALID` for a 2xx body that is too large or not the protocol's.
 */
export async function attempt(settings: AttemptSettings, request: ChatRequest, body: string, signal: AbortSignal | undefined): Promise<ChatResponse | Failure> {
  const { wire, endpoint, headers, timeoutMs, maxBytes, fetch: fetchImpl, scrub } = settings;
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
