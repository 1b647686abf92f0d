import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { chatEndpoint, LLM_ENV_FIELDS, refineLlmEnv, toLlmSettings, type LlmSettings } from "./llm-settings.js";

/** What an app's config does with the REVIEWBOT_LLM_* variables: its strict schema, refined, then toLlmSettings. */
function loadLlmSettings(env: NodeJS.ProcessEnv): LlmSettings {
  const slice = Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith("REVIEWBOT_LLM_")));
  return toLlmSettings(parseEnvConfig(z.strictObject(LLM_ENV_FIELDS).superRefine(refineLlmEnv), slice));
}

const dir = mkdtempSync(join(tmpdir(), "reviewbot-llm-settings-"));
const keyFile = join(dir, "key");
writeFileSync(keyFile, "sk-from-a-file-0123456789\n");

const on = { REVIEWBOT_LLM_BASE_URL: "http://localhost:11434/v1", REVIEWBOT_LLM_MODEL: "qwen2.5-coder:32b" };

describe("loadLlmSettings", () => {
  it("is off without a base URL, whatever else is set", () => {
    expect(loadLlmSettings({})).toEqual({ enabled: false });
    expect(loadLlmSettings({ REVIEWBOT_LLM_MODEL: "m", REVIEWBOT_LLM_MAX_TOKENS: "100000" })).toEqual({ enabled: false });
  });

  it("fills the defaults when on", () => {
    expect(loadLlmSettings(on)).toEqual({
      enabled: true,
      protocol: "openai",
      baseUrl: "http://localhost:11434/v1",
      endpoint: "http://localhost:11434/v1/chat/completions",
      apiKey: "",
      model: "qwen2.5-coder:32b",
      models: ["qwen2.5-coder:32b"],
      maxTokens: 4096,
      timeoutMs: 120_000,
      prices: new Map(),
      jobTokens: 400_000,
      installationDailyTokens: 5_000_000,
      jobMicrodollars: null,
      installationDailyMicrodollars: null,
      fetchHosts: [],
      contextTokens: 32_768,
    });
  });

  it("reads every setting, the key from its file", () => {
    const settings = loadLlmSettings({
      REVIEWBOT_LLM_PROTOCOL: "anthropic",
      REVIEWBOT_LLM_BASE_URL: "https://api.anthropic.com/",
      REVIEWBOT_LLM_API_KEY_FILE: keyFile,
      REVIEWBOT_LLM_MODEL: "claude-sonnet-4-5",
      REVIEWBOT_LLM_MODELS: "claude-sonnet-4-5, claude-haiku-4-5,,claude-sonnet-4-5",
      REVIEWBOT_LLM_MAX_TOKENS: "8000",
      REVIEWBOT_LLM_TIMEOUT_MS: "60000",
      REVIEWBOT_LLM_PRICES: "claude-sonnet-4-5=3/15, claude-haiku-4-5=0.8/4",
      REVIEWBOT_LLM_JOB_TOKENS: "200000",
      REVIEWBOT_LLM_INSTALLATION_DAILY_TOKENS: "1000000",
      REVIEWBOT_LLM_JOB_SPEND_USD: "2.5",
      REVIEWBOT_LLM_INSTALLATION_DAILY_SPEND_USD: "40",
      REVIEWBOT_LLM_FETCH_HOSTS: "Docs.Python.org, developer.mozilla.org",
      REVIEWBOT_LLM_CONTEXT_TOKENS: "200000",
    });
    expect(settings).toEqual({
      enabled: true,
      protocol: "anthropic",
      baseUrl: "https://api.anthropic.com",
      endpoint: "https://api.anthropic.com/v1/messages",
      apiKey: "sk-from-a-file-0123456789",
      model: "claude-sonnet-4-5",
      models: ["claude-sonnet-4-5", "claude-haiku-4-5"],
      maxTokens: 8000,
      timeoutMs: 60_000,
      prices: new Map([
        ["claude-sonnet-4-5", { inputMicrodollarsPerMillion: 3_000_000, outputMicrodollarsPerMillion: 15_000_000 }],
        ["claude-haiku-4-5", { inputMicrodollarsPerMillion: 800_000, outputMicrodollarsPerMillion: 4_000_000 }],
      ]),
      jobTokens: 200_000,
      installationDailyTokens: 1_000_000,
      jobMicrodollars: 2_500_000,
      installationDailyMicrodollars: 40_000_000,
      fetchHosts: ["docs.python.org", "developer.mozilla.org"],
      contextTokens: 200_000,
    });
  });

  it("ignores other REVIEWBOT_* names (they belong to the app's own schema)", () => {
    expect(loadLlmSettings({ ...on, REVIEWBOT_PORT: "3000", HOME: "/root" }).enabled).toBe(true);
  });

  const secret = "sk-live-abcdefghijklmnop";
  it.each([
    ["an unknown REVIEWBOT_LLM_* name", { ...on, REVIEWBOT_LLM_MODLE: "m" }, /^REVIEWBOT_LLM_MODLE: /],
    ["a model missing", { REVIEWBOT_LLM_BASE_URL: "http://h/v1" }, /^REVIEWBOT_LLM_MODEL: is required when REVIEWBOT_LLM_BASE_URL is set/],
    ["a protocol of its own", { ...on, REVIEWBOT_LLM_PROTOCOL: "gemini" }, /^REVIEWBOT_LLM_PROTOCOL: /],
    ["a URL that is not http", { ...on, REVIEWBOT_LLM_BASE_URL: "ftp://h/v1" }, /^REVIEWBOT_LLM_BASE_URL: must be an http/],
    ["a URL that is not one", { ...on, REVIEWBOT_LLM_BASE_URL: "localhost:11434" }, /^REVIEWBOT_LLM_BASE_URL: must be an http/],
    ["credentials in the URL", { ...on, REVIEWBOT_LLM_BASE_URL: `https://user:${secret}@h/v1` }, /^REVIEWBOT_LLM_BASE_URL: must not carry credentials/],
    ["a query in the URL", { ...on, REVIEWBOT_LLM_BASE_URL: `https://h/v1?key=${secret}` }, /^REVIEWBOT_LLM_BASE_URL: must not have a query/],
    ["an openai URL that is the endpoint", { ...on, REVIEWBOT_LLM_BASE_URL: "https://h/v1/chat/completions" }, /^REVIEWBOT_LLM_BASE_URL: must be the base URL/],
    ["an anthropic URL with /v1", { ...on, REVIEWBOT_LLM_PROTOCOL: "anthropic", REVIEWBOT_LLM_BASE_URL: "https://api.anthropic.com/v1" }, /without \/v1/],
    ["a key with a newline", { ...on, REVIEWBOT_LLM_API_KEY: `${secret}\nx` }, /^REVIEWBOT_LLM_API_KEY: must be printable ASCII/],
    [
      "both the key and its file",
      { ...on, REVIEWBOT_LLM_API_KEY: secret, REVIEWBOT_LLM_API_KEY_FILE: keyFile },
      /set REVIEWBOT_LLM_API_KEY or REVIEWBOT_LLM_API_KEY_FILE, not both/,
    ],
    ["a model with a space", { ...on, REVIEWBOT_LLM_MODEL: "my model" }, /^REVIEWBOT_LLM_MODEL: must be a model name/],
    ["an allowlist without the model", { ...on, REVIEWBOT_LLM_MODELS: "other" }, /^REVIEWBOT_LLM_MODELS: must include REVIEWBOT_LLM_MODEL/],
    ["a price for a model not allowed", { ...on, REVIEWBOT_LLM_PRICES: "gpt-4o=2.5/10" }, /^REVIEWBOT_LLM_PRICES: prices a model that is not in/],
    ["a malformed price", { ...on, REVIEWBOT_LLM_PRICES: "qwen2.5-coder:32b=cheap" }, /^REVIEWBOT_LLM_PRICES: entry 1 must be model=input\/output/],
    [
      "a spend cap without prices",
      { ...on, REVIEWBOT_LLM_JOB_SPEND_USD: "1" },
      /^REVIEWBOT_LLM_PRICES: must price every allowed model when a spend cap is set/,
    ],
    ["a spend cap of 0", { ...on, REVIEWBOT_LLM_JOB_SPEND_USD: "0" }, /^REVIEWBOT_LLM_JOB_SPEND_USD: must be a dollar amount above 0/],
    ["an output cap past the context", { ...on, REVIEWBOT_LLM_MAX_TOKENS: "40000" }, /^REVIEWBOT_LLM_MAX_TOKENS: must be below REVIEWBOT_LLM_CONTEXT_TOKENS/],
    ["a timeout under a second", { ...on, REVIEWBOT_LLM_TIMEOUT_MS: "10" }, /^REVIEWBOT_LLM_TIMEOUT_MS: /],
    [
      "a fetch host with a scheme",
      { ...on, REVIEWBOT_LLM_FETCH_HOSTS: "https://docs.python.org" },
      /^REVIEWBOT_LLM_FETCH_HOSTS: each entry must be an exact host name/,
    ],
    ["a wildcard fetch host", { ...on, REVIEWBOT_LLM_FETCH_HOSTS: "*.python.org" }, /^REVIEWBOT_LLM_FETCH_HOSTS: /],
  ])("refuses %s with CONFIG_INVALID, never repeating the value", (_name, env, message) => {
    let caught: unknown;
    try {
      loadLlmSettings(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "CONFIG_INVALID", message: expect.stringMatching(message) as unknown });
    expect((caught as Error).message).not.toContain(secret);
  });
});

describe("the settings fields in an app's own schema", () => {
  // As the api will: its fields and the LLM fields in one strict schema, the checks in its superRefine.
  const AppConfig = z
    .object({ REVIEWBOT_PORT: z.coerce.number().default(3000), ...LLM_ENV_FIELDS })
    .strict()
    .superRefine((config, ctx) => {
      refineLlmEnv(config, ctx);
    });

  it("reads both, and the LLM settings from the result", () => {
    const config = parseEnvConfig(AppConfig, { ...on, REVIEWBOT_PORT: "8080", REVIEWBOT_LLM_API_KEY_FILE: keyFile });
    expect(config.REVIEWBOT_PORT).toBe(8080);
    expect(toLlmSettings(config)).toMatchObject({ enabled: true, apiKey: "sk-from-a-file-0123456789" });
  });

  it("runs the checks between LLM settings", () => {
    expect(() => parseEnvConfig(AppConfig, { REVIEWBOT_LLM_BASE_URL: "http://h/v1" })).toThrow(/^REVIEWBOT_LLM_MODEL: is required/);
  });
});

describe("chatEndpoint", () => {
  it.each([
    ["openai", "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"],
    ["openai", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions"],
    ["anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"],
    ["anthropic", "http://litellm:4000/", "http://litellm:4000/v1/messages"],
  ] as const)("%s at %s → %s", (protocol, base, endpoint) => {
    expect(chatEndpoint(protocol, base)).toBe(endpoint);
  });
});
