import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import { parseRepoConfig } from "@reviewbot/policy/repo-config";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { describe, expect, it } from "vitest";
import type { HelperReport } from "../../pipeline/report.js";
import { helperTools, MAX_HELPER_CALLS } from "./helper-tools.js";
import { REPO_TOOL_NAMES } from "./repo-tools.js";
import { ToolInputError } from "./tool-input-error.js";

const config = parseRepoConfig(
  JSON.stringify({
    helpers: [
      { name: "lint", description: "lints", command: ["eslint", "."], allow_args: true, max_args: 2 },
      { name: "types", description: "type-checks", command: ["tsc"] },
      { name: "read_file", description: "a helper named like a built-in", command: ["cat"] },
    ],
  }),
  parseOperatorPolicy({}),
);

function report(helper: ResolvedHelper): HelperReport {
  return {
    name: helper.name,
    image: helper.image.name,
    engine: "bwrap",
    sandboxed: true,
    outcome: "findings",
    exitCode: 1,
    signal: null,
    timedOut: false,
    oomKilled: false,
    outputTruncated: false,
    durationMs: 5,
    stdout: "",
    stderr: "",
    problems: [],
    install: null,
    findings: [{ path: "a.ts", line: 3, endLine: null, column: null, severity: "warning", message: "unused", rule: "no-unused", helper: helper.name }],
  };
}

describe("helperTools", () => {
  it("offers each helper by its name, arguments only to one that allows them, never one named like a built-in", () => {
    const tools = helperTools(config.helpers, (helper) => Promise.resolve(report(helper)), REPO_TOOL_NAMES);
    expect(tools.map((tool) => tool.spec.name)).toEqual(["lint", "types"]);
    expect(tools[0]?.spec.parameters).toMatchObject({ properties: { args: { maxItems: 2 } } });
    expect(tools[1]?.spec.parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("hands the model's arguments to the runner and answers the findings", async () => {
    const seen: unknown[][] = [];
    const [lint] = helperTools(
      config.helpers,
      (helper, args) => {
        seen.push([...args]);
        return Promise.resolve(report(helper));
      },
      REPO_TOOL_NAMES,
    );
    const answer = await lint?.run({ args: ["src"] }, new AbortController().signal);
    expect(seen).toEqual([["src"]]);
    expect(answer).toContain("a.ts:3: warning [no-unused]: unused");
    await expect(lint?.run({ args: "src" }, new AbortController().signal)).rejects.toBeInstanceOf(ToolInputError);
  });

  it(`runs at most ${MAX_HELPER_CALLS} helpers in one review, whichever helper is asked`, async () => {
    let runs = 0;
    const [lint, types] = helperTools(
      config.helpers,
      (helper) => {
        runs += 1;
        return Promise.resolve(report(helper));
      },
      REPO_TOOL_NAMES,
    );
    const signal = new AbortController().signal;
    for (let call = 0; call < MAX_HELPER_CALLS; call += 1) await (call % 2 === 0 ? lint : types)?.run({}, signal);
    expect(runs).toBe(MAX_HELPER_CALLS);
    await expect(types?.run({}, signal)).rejects.toThrow(/helper runs are used/);
    expect(runs).toBe(MAX_HELPER_CALLS);
  });
});
