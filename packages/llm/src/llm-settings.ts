import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { ANTHROPIC_MESSAGES_PATH } from "./anthropic-request.js";
import { LlmPricesSetting, parseUsdMicrodollars, type LlmPrices } from "./llm-prices.js";
import { OPENAI_CHAT_PATH } from "./openai-request.js";

export const LLM_PROTOCOLS = ["openai", "anthropic"] as const;
export type LlmProtocol = (typeof LLM_PROTOCOLS)[number];

/**
 * The URL a protocol's calls go to: `{base}/chat/completions` for openai (the base ends in `/v1`:
 * `https://api.openai.com/v1`, `http://localhost:11434/v1`), `{base}/v1/messages` for anthropic
 * (`https://api.anthropic.com`).
 */
export function chatEndpoint(protocol: LlmProtocol, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return protocol === "openai" ? `${base}${OPENAI_CHAT_PATH}` : `${base}${ANTHROPIC_MESSAGES_PATH}`;
}

const positiveInt = z.coerce.number().int().positive();

/** A model name as requests and the lists below carry it: no spaces, no commas, no controls. */
const MODEL_NAME = /^[^\s,\p{Cc}]{1,200}$/u;
const modelName = z.string().regex(MODEL_NAME, "must be a model name (no spaces or commas, at most 200 characters)");

/** A comma list, trimmed, empties and repeats dropped. */
function commaList(entry: z.ZodType<string, string>, normalise: (value: string) => string = (value) => value) {
  return z
    .string()
    .transform((value) => [
      ...new Set(
        value
          .split(",")
          .map((item) => normalise(item.trim()))
          .filter((item) => item.length > 0),
      ),
    ])
    .pipe(z.array(entry).max(100));
}

/** An exact host name (letters, digits, hyphens, dots; no port, scheme or wildcard), compared lowercased. */
const hostName = z
  .string()
  .max(253)
  .regex(
    /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/,
    "each entry must be an exact host name (no scheme, port, path or wildcard)",
  );

/**
 * The endpoint's base URL: http or https, no credentials (the key has its own setting, and a URL
 * is logged), no query or fragment (paths are appended to it). Kept without its trailing slash.
 * Messages never repeat the value.
 */
const baseUrl = z.string().transform((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
    return z.NEVER;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
  } else if (url.username !== "" || url.password !== "") {
    ctx.addIssue({ code: "custom", message: "must not carry credentials: put the key in REVIEWBOT_LLM_API_KEY_FILE" });
  } else if (value.includes("?") || value.includes("#")) {
    ctx.addIssue({ code: "custom", message: "must not have a query or fragment (the protocol's path is appended to it)" });
  } else {
    return url.href.replace(/\/+$/, "");
  }
  return z.NEVER;
});

/** A US-dollar cap, as microdollars. */
const usdCap = z.string().transform((value, ctx) => {
  const microdollars = parseUsdMicrodollars(value);
  if (microdollars === null || microdollars === 0) {
    ctx.addIssue({ code: "custom", message: "must be a dollar amount above 0 (e.g. 2.50)" });
    return z.NEVER;
  }
  return microdollars;
});

/**
 * The operator's model settings, as REVIEWBOT_LLM_* variables. An app spreads these fields into
 * its own strict schema and calls {@link refineLlmEnv} from its `superRefine` and
 * {@link toLlmSettings} on the result.
 *
 * - `REVIEWBOT_LLM_BASE_URL` absent: the AI review is off (the other settings are not checked
 *   against each other then).
 * - The key: `REVIEWBOT_LLM_API_KEY_FILE` (a file holding it, as Compose secrets and systemd
 *   credentials deliver it), or `REVIEWBOT_LLM_API_KEY` directly, as REDIS_PASSWORD: the shared
 *   env reader (`parseEnvConfig`) reads `X_FILE` for a declared `X` and refuses both. None
 *   for a local server that wants none (Ollama, llama.cpp): no auth header is sent.
 * - Tokens and spend caps feed the api's budget (LLM_BUDGET_EXCEEDED); spend only counts models
 *   that have a price.
 */
export const LLM_ENV_FIELDS = {
  REVIEWBOT_LLM_PROTOCOL: z.enum(LLM_PROTOCOLS).default("openai"),
  REVIEWBOT_LLM_BASE_URL: baseUrl.optional(),
  // It goes into a header: printable ASCII only (a newline in it would also make fetch echo it in an error).
  REVIEWBOT_LLM_API_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{1,4096}$/, "must be printable ASCII without spaces, at most 4096 characters")
    .optional(),
  REVIEWBOT_LLM_MODEL: modelName.optional(),
  // The models a request may name; the default model must be one of them. Default: the one model.
  REVIEWBOT_LLM_MODELS: commaList(modelName).optional(),
  // The output cap of one call (a request asking for more is clamped by the broker).
  REVIEWBOT_LLM_MAX_TOKENS: positiveInt.max(1_000_000).default(4096),
  // One upstream attempt's deadline; a call makes up to 4 attempts.
  REVIEWBOT_LLM_TIMEOUT_MS: positiveInt.min(1000).max(3_600_000).default(120_000),
  REVIEWBOT_LLM_PRICES: LlmPricesSetting,
  REVIEWBOT_LLM_JOB_TOKENS: positiveInt.default(400_000),
  REVIEWBOT_LLM_INSTALLATION_DAILY_TOKENS: positiveInt.default(5_000_000),
  REVIEWBOT_LLM_JOB_SPEND_USD: usdCap.optional(),
  REVIEWBOT_LLM_INSTALLATION_DAILY_SPEND_USD: usdCap.optional(),
  // Hosts the model's fetch_url may read (exact names); none: the tool is not offered.
  REVIEWBOT_LLM_FETCH_HOSTS: commaList(hostName, (host) => host.toLowerCase()).default([]),
  // The model's context window; the loop plans its prompt by it. Ollama serves its own num_ctx whatever this says.
  REVIEWBOT_LLM_CONTEXT_TOKENS: positiveInt.min(1024).max(100_000_000).default(32_768),
};

/** The REVIEWBOT_LLM_* values as an app's schema parses them from {@link LLM_ENV_FIELDS}. */
export type LlmEnv = z.output<z.ZodObject<typeof LLM_ENV_FIELDS>>;

/**
 * The checks between settings, when the AI review is on: a model is named, it is in the
 * allowlist, prices name allowed models, a spend cap has a price for every allowed model (or it
 * would cap nothing), the output cap fits the context window, and the base URL is a base (not the
 * full endpoint: the protocol's path is appended).
 */
export function refineLlmEnv(config: LlmEnv, ctx: z.RefinementCtx): void {
  const base = config.REVIEWBOT_LLM_BASE_URL;
  if (base === undefined) return;
  const issue = (key: keyof LlmEnv, message: string): void => {
    ctx.addIssue({ code: "custom", path: [key], message });
  };
  const protocol = config.REVIEWBOT_LLM_PROTOCOL;
  if (protocol === "openai" && /\/chat\/completions$/.test(base)) {
    issue("REVIEWBOT_LLM_BASE_URL", "must be the base URL (e.g. https://api.openai.com/v1): /chat/completions is appended");
  }
  if (protocol === "anthropic" && /\/v1(?:\/messages)?$/.test(base)) {
    issue("REVIEWBOT_LLM_BASE_URL", "must be the base URL without /v1 (e.g. https://api.anthropic.com): /v1/messages is appended");
  }
  const model = config.REVIEWBOT_LLM_MODEL;
  if (model === undefined) {
    issue("REVIEWBOT_LLM_MODEL", "is required when REVIEWBOT_LLM_BASE_URL is set");
    return;
  }
  const models = config.REVIEWBOT_LLM_MODELS ?? [model];
  if (!models.includes(model)) issue("REVIEWBOT_LLM_MODELS", "must include REVIEWBOT_LLM_MODEL");
  for (const priced of config.REVIEWBOT_LLM_PRICES.keys()) {
    if (!models.includes(priced)) issue("REVIEWBOT_LLM_PRICES", "prices a model that is not in REVIEWBOT_LLM_MODELS");
  }
  const spendCapped = config.REVIEWBOT_LLM_JOB_SPEND_USD !== undefined || config.REVIEWBOT_LLM_INSTALLATION_DAILY_SPEND_USD !== undefined;
  if (spendCapped && models.some((name) => !config.REVIEWBOT_LLM_PRICES.has(name))) {
    issue("REVIEWBOT_LLM_PRICES", "must price every allowed model when a spend cap is set");
  }
  if (config.REVIEWBOT_LLM_MAX_TOKENS >= config.REVIEWBOT_LLM_CONTEXT_TOKENS) {
    issue("REVIEWBOT_LLM_MAX_TOKENS", "must be below REVIEWBOT_LLM_CONTEXT_TOKENS (the prompt needs room too)");
  }
}

/** The AI review's settings when it is on. Spend caps in microdollars, null for none. */
export interface LlmEnabledSettings {
  readonly enabled: true;
  readonly protocol: LlmProtocol;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  /** Where calls go: {@link chatEndpoint}. */
  readonly endpoint: string;
  /** The key, `""` for none (no auth header is sent). A secret: never log the settings whole. */
  readonly apiKey: string;
  readonly model: string;
  readonly models: readonly string[];
  readonly maxTokens: number;
  readonly timeoutMs: number;
  readonly prices: LlmPrices;
  readonly jobTokens: number;
  readonly installationDailyTokens: number;
  readonly jobMicrodollars: number | null;
  readonly installationDailyMicrodollars: number | null;
  /** Lowercased; empty: `fetch_url` is not offered. */
  readonly fetchHosts: readonly string[];
  readonly contextTokens: number;
}

export type LlmSettings = { readonly enabled: false } | LlmEnabledSettings;

/**
 * The settings from REVIEWBOT_LLM_* values that passed {@link refineLlmEnv}.
 *
 * @throws AppError `CONFIG_INVALID` when they did not (a model missing with a base URL).
 */
export function toLlmSettings(config: LlmEnv): LlmSettings {
  const base = config.REVIEWBOT_LLM_BASE_URL;
  if (base === undefined) return Object.freeze({ enabled: false });
  const model = config.REVIEWBOT_LLM_MODEL;
  if (model === undefined) throw new AppError("CONFIG_INVALID", "REVIEWBOT_LLM_MODEL: is required when REVIEWBOT_LLM_BASE_URL is set");
  const protocol = config.REVIEWBOT_LLM_PROTOCOL;
  return Object.freeze({
    enabled: true,
    protocol,
    baseUrl: base,
    endpoint: chatEndpoint(protocol, base),
    apiKey: config.REVIEWBOT_LLM_API_KEY ?? "",
    model,
    models: Object.freeze([...(config.REVIEWBOT_LLM_MODELS ?? [model])]),
    maxTokens: config.REVIEWBOT_LLM_MAX_TOKENS,
    timeoutMs: config.REVIEWBOT_LLM_TIMEOUT_MS,
    prices: config.REVIEWBOT_LLM_PRICES,
    jobTokens: config.REVIEWBOT_LLM_JOB_TOKENS,
    installationDailyTokens: config.REVIEWBOT_LLM_INSTALLATION_DAILY_TOKENS,
    jobMicrodollars: config.REVIEWBOT_LLM_JOB_SPEND_USD ?? null,
    installationDailyMicrodollars: config.REVIEWBOT_LLM_INSTALLATION_DAILY_SPEND_USD ?? null,
    fetchHosts: Object.freeze([...config.REVIEWBOT_LLM_FETCH_HOSTS]),
    contextTokens: config.REVIEWBOT_LLM_CONTEXT_TOKENS,
  });
}
