import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { helperCommentsOn, loadApiConfig } from "./api-config.js";

const base = { REDIS_URL: "redis://127.0.0.1:6379", REVIEWBOT_WEBHOOK_SECRET: "0123456789abcdef" };
const local = { ...base, REVIEWBOT_SINK: "local", REVIEWBOT_LOCAL_SINK_DIR: "/tmp/out" };
const github = { ...base, GITHUB_APP_ID: "12", GITHUB_PRIVATE_KEY_FILE: "/run/secrets/key.pem" };

describe("loadApiConfig", () => {
  it("applies the documented defaults", () => {
    expect(loadApiConfig(github)).toMatchObject({
      REVIEWBOT_HOST: "127.0.0.1",
      REVIEWBOT_PORT: 3000,
      REVIEWBOT_WEBHOOK_MAX_BYTES: 26_214_400,
      REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: 8,
      GITHUB_API_URL: "https://api.github.com",
      sink: { kind: "github", appId: 12, privateKey: { file: "/run/secrets/key.pem" } },
      REVIEWBOT_DRAFTS: "repository",
      REVIEWBOT_BOT_PULL_REQUESTS: "never",
      REVIEWBOT_MIN_INLINE_SEVERITY: "notice",
      REVIEWBOT_REVIEW_COMMAND: "/review",
      REVIEWBOT_BOT_LOGINS: [],
      REVIEWBOT_PR_ACTIONS: ["opened", "reopened", "synchronize", "ready_for_review"],
      REVIEWBOT_COMMAND_ASSOCIATIONS: ["OWNER", "MEMBER", "COLLABORATOR"],
    });
  });

  it.each([
    ["off without a model", {}, false],
    ["on with a model", { REVIEWBOT_LLM_BASE_URL: "http://127.0.0.1:1/v1", REVIEWBOT_LLM_MODEL: "m" }, true],
    [
      "off with a model when the operator says off",
      { REVIEWBOT_LLM_BASE_URL: "http://127.0.0.1:1/v1", REVIEWBOT_LLM_MODEL: "m", REVIEWBOT_REVIEW_COMMENTS: "off" },
      false,
    ],
    ["on without a model when the operator says on", { REVIEWBOT_REVIEW_COMMENTS: "on" }, true],
  ])("puts helper findings inline %s", (_, env, expected) => {
    expect(helperCommentsOn(loadApiConfig({ ...github, ...env }))).toBe(expected);
  });

  it("takes the operator's ceilings on the repositories' settings, and refuses another value by name", () => {
    const config = loadApiConfig({ ...local, REVIEWBOT_DRAFTS: "never", REVIEWBOT_BOT_PULL_REQUESTS: "repository", REVIEWBOT_MIN_INLINE_SEVERITY: "warning" });
    expect(config).toMatchObject({ REVIEWBOT_DRAFTS: "never", REVIEWBOT_BOT_PULL_REQUESTS: "repository", REVIEWBOT_MIN_INLINE_SEVERITY: "warning" });
    expect(() => loadApiConfig({ ...local, REVIEWBOT_DRAFTS: "always" })).toThrow(/^REVIEWBOT_DRAFTS: /);
    expect(() => loadApiConfig({ ...local, REVIEWBOT_MIN_INLINE_SEVERITY: "info" })).toThrow(/^REVIEWBOT_MIN_INLINE_SEVERITY: /);
  });

  it("reaches Redis through Sentinels, the Sentinels' password from a file like every secret", () => {
    const dir = mkdtempSync(join(tmpdir(), "api-config-"));
    writeFileSync(join(dir, "sentinel"), "sentinel-pw\n");
    const config = loadApiConfig({
      ...local,
      REDIS_URL: undefined,
      REDIS_SENTINELS: "10.0.0.1:26379,10.0.0.2",
      REDIS_SENTINEL_NAME: "reviewbot",
      REDIS_USERNAME: "reviewbot-api",
      REDIS_SENTINEL_PASSWORD_FILE: join(dir, "sentinel"),
    });
    expect(config.redis).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "10.0.0.1", port: 26379 },
        { host: "10.0.0.2", port: 26379 },
      ],
      name: "reviewbot",
      username: "reviewbot-api",
      password: undefined,
      sentinelPassword: "sentinel-pw",
    });
  });

  it("gives each sink what it requires, and no more", () => {
    expect(loadApiConfig(local).sink).toEqual({ kind: "local", dir: "/tmp/out" });
    expect(loadApiConfig({ ...base, GITHUB_APP_ID: "7", GITHUB_PRIVATE_KEY: "pem" }).sink).toEqual({ kind: "github", appId: 7, privateKey: { pem: "pem" } });
    expect(loadApiConfig(local)).not.toHaveProperty("REVIEWBOT_LOCAL_SINK_DIR");
  });

  it("narrows the event filter to a subset, and refuses anything outside it", () => {
    expect(loadApiConfig({ ...local, REVIEWBOT_PR_ACTIONS: "opened, ready_for_review" }).REVIEWBOT_PR_ACTIONS).toEqual(["opened", "ready_for_review"]);
    expect(() => loadApiConfig({ ...local, REVIEWBOT_COMMAND_ASSOCIATIONS: "OWNER,CONTRIBUTOR" })).toThrow(
      /^REVIEWBOT_COMMAND_ASSOCIATIONS: each entry must be one of OWNER, MEMBER, COLLABORATOR/,
    );
    expect(() => loadApiConfig({ ...local, REVIEWBOT_PR_ACTIONS: "" })).toThrow(/^REVIEWBOT_PR_ACTIONS: /);
  });

  it("takes a smaller body limit and another number of concurrent reads", () => {
    expect(loadApiConfig({ ...local, REVIEWBOT_WEBHOOK_MAX_BYTES: "1048576", REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: "2" })).toMatchObject({
      REVIEWBOT_WEBHOOK_MAX_BYTES: 1_048_576,
      REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: 2,
    });
  });

  it("caps each installation's running reviews at 4 by default, a slot living 30 min, and takes other values", () => {
    expect(loadApiConfig(local)).toMatchObject({ REVIEWBOT_INSTALLATION_CONCURRENCY: 4, REVIEWBOT_INSTALLATION_SLOT_TTL_MS: 1_800_000 });
    expect(loadApiConfig({ ...local, REVIEWBOT_INSTALLATION_CONCURRENCY: "1", REVIEWBOT_INSTALLATION_SLOT_TTL_MS: "3600000" })).toMatchObject({
      REVIEWBOT_INSTALLATION_CONCURRENCY: 1,
      REVIEWBOT_INSTALLATION_SLOT_TTL_MS: 3_600_000,
    });
    for (const [name, value] of [
      ["REVIEWBOT_INSTALLATION_CONCURRENCY", "0"],
      ["REVIEWBOT_INSTALLATION_CONCURRENCY", "2.5"],
      ["REVIEWBOT_INSTALLATION_SLOT_TTL_MS", "59999"],
    ] as const) {
      expect(() => loadApiConfig({ ...local, [name]: value })).toThrow(new RegExp(`^${name}: `));
    }
  });

  describe("lifetimes that cannot work together are refused, naming both settings", () => {
    const model = { ...local, REVIEWBOT_LLM_BASE_URL: "http://127.0.0.1:11434/v1", REVIEWBOT_LLM_MODEL: "m" };

    it("a token that expires before the worker's AI loop gets one model call (negative control: one that leaves it that call)", () => {
      // The audit's setting: the worker stops the AI loop 60 s before the token expires, so nothing is left.
      expect(() => loadApiConfig({ ...model, REVIEWBOT_JOB_TOKEN_TTL_MS: "60000" })).toThrow(
        /^REVIEWBOT_JOB_TOKEN_TTL_MS: must be at least REVIEWBOT_LLM_TIMEOUT_MS \+ 60000 ms \(180000\)/,
      );
      expect(() => loadApiConfig({ ...model, REVIEWBOT_JOB_TOKEN_TTL_MS: "179999" })).toThrow(/^REVIEWBOT_JOB_TOKEN_TTL_MS: /);
      expect(() => loadApiConfig({ ...model, REVIEWBOT_JOB_TOKEN_TTL_MS: "120000", REVIEWBOT_LLM_TIMEOUT_MS: "61000" })).toThrow(
        /^REVIEWBOT_JOB_TOKEN_TTL_MS: .*\(121000\)/,
      );
      expect(loadApiConfig({ ...model, REVIEWBOT_JOB_TOKEN_TTL_MS: "180000" }).REVIEWBOT_JOB_TOKEN_TTL_MS).toBe(180_000);
      expect(loadApiConfig({ ...model, REVIEWBOT_JOB_TOKEN_TTL_MS: "120000", REVIEWBOT_LLM_TIMEOUT_MS: "60000" }).REVIEWBOT_JOB_TOKEN_TTL_MS).toBe(120_000);
      // Without a model there is no AI loop to leave time for.
      expect(loadApiConfig({ ...local, REVIEWBOT_JOB_TOKEN_TTL_MS: "60000" }).REVIEWBOT_JOB_TOKEN_TTL_MS).toBe(60_000);
    });

    it("an installation slot that frees itself while its job's token is live (negative control: the same lifetime)", () => {
      expect(() => loadApiConfig({ ...local, REVIEWBOT_JOB_TOKEN_TTL_MS: "900000", REVIEWBOT_INSTALLATION_SLOT_TTL_MS: "899999" })).toThrow(
        /^REVIEWBOT_INSTALLATION_SLOT_TTL_MS: must be at least REVIEWBOT_JOB_TOKEN_TTL_MS/,
      );
      expect(loadApiConfig({ ...local, REVIEWBOT_JOB_TOKEN_TTL_MS: "900000", REVIEWBOT_INSTALLATION_SLOT_TTL_MS: "900000" })).toMatchObject({
        REVIEWBOT_INSTALLATION_SLOT_TTL_MS: 900_000,
      });
    });
  });

  it("lets an installation have 4 model calls in flight by default, and takes another number", () => {
    expect(loadApiConfig(local).REVIEWBOT_LLM_INSTALLATION_CONCURRENCY).toBe(4);
    expect(loadApiConfig({ ...local, REVIEWBOT_LLM_INSTALLATION_CONCURRENCY: "1" }).REVIEWBOT_LLM_INSTALLATION_CONCURRENCY).toBe(1);
    expect(() => loadApiConfig({ ...local, REVIEWBOT_LLM_INSTALLATION_CONCURRENCY: "0" })).toThrow(/^REVIEWBOT_LLM_INSTALLATION_CONCURRENCY: /);
  });

  it("splits and lower-cases bot logins", () => {
    expect(loadApiConfig({ ...local, REVIEWBOT_BOT_LOGINS: " Renovate-Bot, ,snyk-bot " }).REVIEWBOT_BOT_LOGINS).toEqual(["renovate-bot", "snyk-bot"]);
  });

  it("ignores variables that are not its own", () => {
    expect(() => loadApiConfig({ ...local, HOME: "/root", GITHUB_TOKEN: "x" })).not.toThrow();
  });

  it.each([
    ["an unknown REVIEWBOT_ name", { ...local, REVIEWBOT_PROT: "80" }, /^REVIEWBOT_PROT: /],
    ["no Redis", { ...local, REDIS_URL: undefined }, /^REDIS_URL: /],
    ["a key prefix with a glob star", { ...local, REVIEWBOT_REDIS_PREFIX: "{rb}*" }, /^REVIEWBOT_REDIS_PREFIX: /],
    [
      "a URL and Sentinels",
      { ...local, REDIS_SENTINELS: "s:26379", REDIS_SENTINEL_NAME: "m" },
      /^REDIS_URL: set one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES, not REDIS_URL and REDIS_SENTINELS/,
    ],
    ["a short webhook secret", { ...local, REVIEWBOT_WEBHOOK_SECRET: "short" }, /^REVIEWBOT_WEBHOOK_SECRET: /],
    ["a bad sink", { ...local, REVIEWBOT_SINK: "s3" }, /^REVIEWBOT_SINK: /],
    ["a local sink without a directory", { ...base, REVIEWBOT_SINK: "local" }, /^REVIEWBOT_LOCAL_SINK_DIR: is required when REVIEWBOT_SINK=local/],
    ["github without an App id", { ...base, GITHUB_PRIVATE_KEY: "k" }, /^GITHUB_APP_ID: is required when REVIEWBOT_SINK=github/],
    ["github without a key", { ...base, GITHUB_APP_ID: "1" }, /^GITHUB_PRIVATE_KEY: exactly one of/],
    ["github with both keys", { ...github, GITHUB_PRIVATE_KEY: "k" }, /^GITHUB_PRIVATE_KEY: exactly one of/],
    ["a removed single worker credential", { ...local, REVIEWBOT_WORKER_CREDENTIAL: "x".repeat(40) }, /^REVIEWBOT_WORKER_CREDENTIAL: /],
    ["a token lifetime past GitHub's hour", { ...local, REVIEWBOT_JOB_TOKEN_TTL_MS: "3600001" }, /^REVIEWBOT_JOB_TOKEN_TTL_MS: /],
    ["a command with a space", { ...local, REVIEWBOT_REVIEW_COMMAND: "/re view" }, /^REVIEWBOT_REVIEW_COMMAND: /],
    ["a port out of range", { ...local, REVIEWBOT_PORT: "70000" }, /^REVIEWBOT_PORT: /],
    ["a body limit above GitHub's 25 MiB", { ...local, REVIEWBOT_WEBHOOK_MAX_BYTES: "26214401" }, /^REVIEWBOT_WEBHOOK_MAX_BYTES: /],
    ["no concurrent body reads", { ...local, REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: "0" }, /^REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: /],
    ["a fractional number of reads", { ...local, REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: "2.5" }, /^REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: /],
  ])("refuses %s with CONFIG_INVALID naming the variable", (_name, env, message) => {
    expect(() => loadApiConfig(env)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(message) as unknown }));
  });

  it("never echoes a secret value in its message", () => {
    expect(() => loadApiConfig({ ...local, REVIEWBOT_DASHBOARD_PASSWORD: "tiny-pw" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("tiny-pw") as unknown }),
    );
  });
});
