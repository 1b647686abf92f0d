import { describe, expect, it } from "vitest";
import { extractFindings } from "./extract-findings.js";
import { checkedParseResult } from "./parse-result.js";

const REQUEST = { format: "errorformat", helper: "lint", mountPoint: "/work", cwd: ".", secrets: [], maxFindings: 2 } as const;
// What the parse process sends for a path outside the repository and two findings, as structured clone delivers it.
const REAL = structuredClone(extractFindings({ ...REQUEST, output: "/etc/passwd:1:1: E3 out\na.py:1:1: E1 bad\nb.py:2:3: E2 worse\n" }));
const [FIRST] = REAL.findings;

describe("checkedParseResult", () => {
  it("passes what extractFindings really sent (the control)", () => {
    expect(REAL.findings).toHaveLength(2);
    expect(REAL.problems).toHaveLength(1);
    expect(checkedParseResult(REAL, REQUEST)).toEqual(REAL);
  });

  // A subverted parse process answers whatever it likes: each answer is refused, naming the field.
  it.each([
    ["not an object", "findings", "(root)"],
    ["a finding for another helper", { ...REAL, findings: [{ ...FIRST, helper: "other" }] }, "findings.0.helper"],
    ["more findings than maxFindings", { ...REAL, findings: [FIRST, FIRST, FIRST] }, "findings"],
    ["a path past PATH_MAX", { ...REAL, findings: [{ ...FIRST, path: "a/".repeat(2049) }] }, "findings.0.path"],
    ["an empty path", { ...REAL, findings: [{ ...FIRST, path: "" }] }, "findings.0.path"],
    ["a message longer than sanitising leaves", { ...REAL, findings: [{ ...FIRST, message: "m".repeat(2001) }] }, "findings.0.message"],
    ["a severity GitHub has no level for", { ...REAL, findings: [{ ...FIRST, severity: "fatal" }] }, "findings.0.severity"],
    ["a line of 0", { ...REAL, findings: [{ ...FIRST, line: 0 }] }, "findings.0.line"],
    ["a field the contract lacks", { ...REAL, findings: [{ ...FIRST, anchor: "x" }] }, "findings.0"],
    ["a flood of problems", { ...REAL, problems: Array.from({ length: 103 }, () => "p") }, "problems"],
    ["a negative drop count", { ...REAL, dropped: -1 }, "dropped"],
  ])("refuses %s", (_name, message, field) => {
    expect(() => checkedParseResult(message, REQUEST)).toThrow(expect.objectContaining({ code: "INTERNAL", details: { field } }));
  });

  it("takes a tool's name for the helper only when asked to (a code scanner's SARIF), and only a helper name", () => {
    const named = { ...REAL, findings: [{ ...FIRST, helper: "CodeQL" }] };
    expect(checkedParseResult(named, { ...REQUEST, toolAsSource: true })).toEqual(named);
    expect(() => checkedParseResult(named, REQUEST)).toThrow(expect.objectContaining({ details: { field: "findings.0.helper" } }));
    const forged = { ...REAL, findings: [{ ...FIRST, helper: "Code QL\n" }] };
    expect(() => checkedParseResult(forged, { ...REQUEST, toolAsSource: true })).toThrow(expect.objectContaining({ details: { field: "findings.0.helper" } }));
  });
});
