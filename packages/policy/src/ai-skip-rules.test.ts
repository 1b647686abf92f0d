import { describe, expect, it } from "vitest";
import { DEFAULT_AI_SKIP_RULES, parseAiSkipRules } from "./ai-skip-rules.js";
import { parseRepoConfig } from "./repo-config.js";
import { parseOperatorPolicy } from "./operator-policy.js";

describe("parseAiSkipRules", () => {
  it("fills what is left out with today's rules", () => {
    expect(parseAiSkipRules({})).toEqual({ ok: true, value: DEFAULT_AI_SKIP_RULES });
    expect(parseAiSkipRules({ paths: ["gen/**"], defaults: false })).toEqual({
      ok: true,
      value: { defaults: false, generatedMarker: true, paths: ["gen/**"] },
    });
  });

  it.each([
    [{ skipAll: true }, "aiSkip.skipAll: unknown key"],
    [{ defaults: "no" }, "aiSkip.defaults"],
    [{ paths: "gen/**" }, "aiSkip.paths"],
    [{ paths: ["/etc/x"] }, "aiSkip.paths[0]"],
    [{ paths: ["a/../b"] }, "aiSkip.paths[0]"],
    [{ paths: ["a//b"] }, "aiSkip.paths[0]"],
    [{ paths: ["src/[ab].ts"] }, "aiSkip.paths[0]"],
    [{ paths: Array.from({ length: 101 }, (_, i) => `f${i}`) }, "aiSkip.paths"],
    [[], "aiSkip"],
  ])("refuses %j, naming the field", (raw, path) => {
    const result = parseAiSkipRules(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message.startsWith(path)).toBe(true);
  });
});

describe("parseRepoConfig: aiSkip", () => {
  const operator = parseOperatorPolicy({});
  it("reads the maintainers' rules beside the helpers", () => {
    const config = parseRepoConfig(JSON.stringify({ helpers: [], aiSkip: { generatedMarker: false, paths: ["fixtures/**"] } }), operator);
    expect(config).toEqual({ helpers: [], aiSkip: { defaults: true, generatedMarker: false, paths: ["fixtures/**"] }, errors: [] });
  });

  it("reports a bad aiSkip with the other config errors and keeps the defaults; the helpers still load", () => {
    const config = parseRepoConfig(JSON.stringify({ helpers: [], aiSkip: { paths: ["../x"] } }), operator);
    expect(config.aiSkip).toEqual(DEFAULT_AI_SKIP_RULES);
    expect(config.errors.map((error) => error.path)).toEqual(["aiSkip.paths[0]"]);
  });

  it("applies the defaults when the file says nothing", () => {
    expect(parseRepoConfig(JSON.stringify({ helpers: [] }), operator).aiSkip).toEqual(DEFAULT_AI_SKIP_RULES);
  });
});
