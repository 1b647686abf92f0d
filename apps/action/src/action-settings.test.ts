import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { isAppError } from "@reviewbot/core/errors";
import { ACTION_INPUTS, loadActionSettings } from "./action-settings.js";

const KEY = "sk-settings-canary-0123456789";
const env = (inputs: Record<string, string>): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries({ "github-token": "ghs_token0123456789", ...inputs }).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]));

function errorOf(inputs: Record<string, string>): string {
  try {
    loadActionSettings(env(inputs));
  } catch (err) {
    if (isAppError(err)) return err.message;
    throw err;
  }
  throw new Error("expected the inputs to be refused");
}

describe("loadActionSettings", () => {
  it("applies the defaults: sandbox require, engine auto, fail-level error, no model", () => {
    expect(loadActionSettings(env({}))).toEqual({
      token: "ghs_token0123456789",
      failLevel: "error",
      filterMode: "added",
      sandbox: "require",
      engine: "auto",
      sarifInput: [],
      llm: { enabled: false },
    });
  });

  it("reads sarif-input as paths one a line or separated by commas", () => {
    expect(loadActionSettings(env({ "sarif-input": "codeql/javascript.sarif, semgrep.sarif\n\n ruff.sarif \n" })).sarifInput).toEqual([
      "codeql/javascript.sarif",
      "semgrep.sarif",
      "ruff.sarif",
    ]);
  });

  it("reads the model inputs as the REVIEWBOT_LLM_* settings they are", () => {
    const settings = loadActionSettings(
      env({
        "llm-base-url": "http://127.0.0.1:1/v1",
        "llm-model": "coder",
        "llm-api-key": KEY,
        "llm-job-tokens": "1000",
        "report-file": "r.json",
        format: "json",
      }),
    );
    expect(settings.llm).toMatchObject({ enabled: true, protocol: "openai", model: "coder", apiKey: KEY, jobTokens: 1000 });
    expect(settings.report).toEqual({ path: "r.json", format: "json" });
  });

  it.each([
    [{ sandbox: "on" }, "input `sandbox`"],
    [{ engine: "none" }, "input `engine`"],
    [{ "fail-level": "fatal" }, "input `fail-level`"],
    [{ "pull-request": "seven" }, "input `pull-request`"],
    [{ "sarif-input": "a.sarif,../outside.sarif" }, "input `sarif-input`: a path must not climb out of GITHUB_WORKSPACE"],
    [{ "sarif-input": "/etc/passwd" }, "input `sarif-input`: a path must be relative to GITHUB_WORKSPACE"],
    [{ "sarif-input": "a\u0007.sarif" }, "input `sarif-input`: a path holds a control character"],
    [{ "sarif-input": Array.from({ length: 21 }, (_, i) => `f${String(i)}.sarif`).join(",") }, "input `sarif-input`: at most 20 files"],
    [{ "llm-base-url": "ftp://example.com" }, "input `llm-base-url`"],
    // A cross-check names the input, not the variable it is.
    [{ "llm-base-url": "https://api.example.com/v1" }, "input `llm-model`: is required when llm-base-url is set"],
  ])("refuses %j naming the input", (inputs, named) => {
    expect(errorOf(inputs)).toContain(named);
  });

  it("never repeats a value, the key least of all", () => {
    const message = errorOf({ "llm-api-key": `${KEY} with spaces`, "llm-base-url": "https://api.example.com/v1", "llm-model": "m" });
    expect(message).toContain("input `llm-api-key`");
    expect(message).not.toContain(KEY);
    expect(errorOf({ "github-token": `${KEY}\n` + "x y" })).not.toContain(KEY);
  });

  it("refuses a run without a token", () => {
    expect(() => loadActionSettings({})).toThrow(/input `github-token`/);
  });
});

describe("action.yml", () => {
  it("declares exactly the inputs the action reads", async () => {
    const yaml = await readFile(new URL("../../../action.yml", import.meta.url), "utf8");
    const inputs = yaml.slice(yaml.indexOf("\ninputs:\n"), yaml.indexOf("\noutputs:\n"));
    const declared = [...inputs.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]);
    expect([...declared].sort()).toEqual([...ACTION_INPUTS].sort());
  });

  it("runs the committed bundle on node20", async () => {
    const yaml = await readFile(new URL("../../../action.yml", import.meta.url), "utf8");
    expect(yaml).toMatch(/^runs:\n {2}using: node20\n {2}main: dist-action\/index\.js\n/m);
  });
});
