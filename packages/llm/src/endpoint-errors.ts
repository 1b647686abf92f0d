import { stripControls } from "@reviewbot/core/strip-controls";
import { readCapped } from "./read-capped.js";

/** The most of an error body read for its message. */
const MAX_ERROR_BYTES = 64 * 1024;
/** The longest excerpt of a provider's error message an error carries. */
const EXCERPT_CHARS = 200;

/**
 * A short excerpt of the provider's error message: `error.message` (OpenAI, Anthropic, LiteLLM),
 * `error` as text (Ollama, llama.cpp), `message` (vLLM) or `detail`, else the body's text; control
 * characters stripped, whitespace collapsed, the key cut out (before shortening, so no part of it
 * survives a cut), at most {@link EXCERPT_CHARS} characters. `""` when the body cannot be read.
 */
export async function errorExcerpt(response: Response, scrub: (text: string) => string): Promise<string> {
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

/** What to check for a refusal the operator can mend: the key (401, 403), or the URL, protocol and model (404). */
export function refusalHint(status: number): string {
  if (status === 401 || status === 403) return " (check the key: REVIEWBOT_LLM_API_KEY_FILE)";
  if (status === 404) return " (check REVIEWBOT_LLM_BASE_URL, REVIEWBOT_LLM_PROTOCOL and the model name)";
  return "";
}

/** `fetch failed: connect ECONNREFUSED …`: the error and its cause's message (fetch puts the reason there), the key cut out. */
export function describeNetworkError(error: unknown, scrub: (text: string) => string): string {
  if (!(error instanceof Error)) return "an unknown error";
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return scrub(stripControls(`${error.message}${cause}`)).slice(0, EXCERPT_CHARS);
}

/** Whether fetch failed because the endpoint redirected (refused: the request asks `redirect: "error"`). */
export function isRedirectError(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof Error && /redirect/i.test(error.cause.message);
}
