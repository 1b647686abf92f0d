import { describe, expect, it } from "vitest";
import { parseSarif } from "./parse-sarif.js";

// A run whose driver and two extensions each hold a rule at index 0 with a distinct id and level,
// so each test shows which component's rule a reference reached.
const rule = (id: string, level: string) => ({ id, defaultConfiguration: { level } });
const run = {
  tool: {
    driver: { name: "CodeQL", guid: "d-guid", rules: [rule("driver/r0", "note")] },
    extensions: [
      { name: "codeql/javascript-queries", guid: "e0-guid", rules: [rule("js/xss", "error")] },
      { name: "codeql/python-queries", guid: "e1-guid", rules: [rule("py/sqli", "warning")] },
    ],
  },
};
const read = (reference: Record<string, unknown>) => {
  const result = { ...reference, message: { text: "m" }, locations: [{ physicalLocation: { artifactLocation: { uri: "a.js" }, region: { startLine: 1 } } }] };
  const [finding] = parseSarif(JSON.stringify({ version: "2.1.0", runs: [{ ...run, results: [result] }] }), { helper: "codeql" }).findings;
  return { rule: finding?.rule, severity: finding?.severity };
};

describe("SARIF rule references", () => {
  it.each([
    ["ruleId", { ruleId: "driver/r0" }, "driver/r0", "notice"],
    ["rule.id", { rule: { id: "driver/r0" } }, "driver/r0", "notice"],
    ["ruleIndex", { ruleIndex: 0 }, "driver/r0", "notice"],
    ["rule.index", { rule: { index: 0 } }, "driver/r0", "notice"],
    ["rule.index with toolComponent.index", { rule: { index: 0, toolComponent: { index: 0 } } }, "js/xss", "error"],
    ["ruleId with toolComponent.index", { ruleId: "py/sqli", rule: { toolComponent: { index: 1 } } }, "py/sqli", "warning"],
    ["rule.index with toolComponent.name", { rule: { index: 0, toolComponent: { name: "codeql/python-queries" } } }, "py/sqli", "warning"],
    ["rule.index with toolComponent.guid", { rule: { index: 0, toolComponent: { guid: "e0-guid" } } }, "js/xss", "error"],
    ["toolComponent.index over its name", { rule: { index: 0, toolComponent: { index: 1, name: "codeql/javascript-queries" } } }, "py/sqli", "warning"],
    ["toolComponent naming the driver", { rule: { index: 0, toolComponent: { name: "CodeQL" } } }, "driver/r0", "notice"],
  ])("resolves %s", (_form, reference, id, severity) => {
    expect(read(reference)).toEqual({ rule: id, severity });
  });

  // Negative controls: a reference to a component the run lacks must not fall back to the driver's
  // rule at the same index (that would give the finding another tool's rule and level).
  it.each([
    ["an extension index out of range", { rule: { index: 0, toolComponent: { index: 7 } } }],
    ["an unknown component name", { rule: { index: 0, toolComponent: { name: "other" } } }],
    ["an unknown guid", { rule: { index: 0, toolComponent: { guid: "nope" } } }],
  ])("finds no rule for %s", (_case, reference) => {
    expect(read(reference)).toEqual({ rule: null, severity: "warning" });
  });
});
