import { describe, expect, it } from "vitest";
import { readFixture } from "./fixtures/read-fixture.js";
import { parseSarif } from "./parse-sarif.js";

const context = { helper: "scan" };

const log = (result: unknown, run: Record<string, unknown> = {}) =>
  JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "t" } }, ...run, results: [result] }] });
const at = (uri: string, extra: Record<string, unknown> = {}) => ({
  message: { text: "m" },
  locations: [{ physicalLocation: { artifactLocation: { uri, ...extra }, region: { startLine: 2 } } }],
});

describe("parseSarif", () => {
  it("reads a SARIF 2.1.0 log with base ids, artifact indexes, rule defaults, pass and suppressed results", () => {
    const outcome = parseSarif(readFixture("semgrep-like.sarif"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      { path: "/work/src/app.py", line: 12, endLine: 14, column: 5, severity: "error", message: "Avoid eval() on untrusted input.", rule: "py.no-eval", helper: "scan" },
      { path: "/work/src/lib/util.py", line: 3, endLine: null, column: null, severity: "notice", message: "TODO left in code.", rule: "py.todo", helper: "scan" },
      { path: "/work/docs/my notes.py", line: null, endLine: null, column: null, severity: "warning", message: "File name has a space.", rule: "py.style", helper: "scan" },
      { path: "tests/test_app.py", line: 7, endLine: null, column: 1, severity: "warning", message: "Unused variable 'x'.", rule: "py.unused", helper: "scan" },
    ]);
  });

  it.each([
    [{ level: "error" }, undefined, "error"],
    [{ level: "note" }, undefined, "notice"],
    [{ level: "none" }, undefined, "notice"],
    [{}, undefined, "warning"],
    [{ level: "note" }, { note: "error" }, "error"],
    [{ level: "error", ruleId: "R1" }, { R1: "notice", error: "warning" }, "notice"],
    [{ ruleId: "constructor" }, { default: "error" }, "error"],
  ] as const)("maps %j with map %j to %s", (fields, map, expected) => {
    const outcome = parseSarif(log({ ...at("a.py"), ...fields }), { helper: "scan", severity: map });
    expect(outcome.findings[0]?.severity).toBe(expected);
  });

  it.each([
    [[{ kind: "inSource" }], false],
    [[{ kind: "external", status: "accepted" }], false],
    [[{ kind: "external", status: "underReview" }], true],
    [[{ kind: "external", status: "rejected" }], true],
    [[], true],
  ])("with suppressions %j, keeps the result: %s", (suppressions, kept) => {
    expect(parseSarif(log({ ...at("a.py"), suppressions }), context).findings).toHaveLength(kept ? 1 : 0);
  });

  it.each([
    ["file:///work/a.py", {}, "/work/a.py"],
    ["file://localhost/work/a.py", {}, "/work/a.py"],
    ["a%2Fb.py", {}, "a/b.py"],
    ["a.py", { uriBaseId: "%SRCROOT%" }, "a.py"],
    ["../../etc/passwd", { uriBaseId: "ROOT" }, "/work/../../etc/passwd"],
  ])("turns the URI %s %j into the path %s", (uri, extra, path) => {
    const outcome = parseSarif(log(at(uri, extra), { originalUriBaseIds: { ROOT: { uri: "file:///work/" } } }), context);
    expect(outcome.findings[0]?.path).toBe(path);
  });

  it.each([
    [log(at("https://example.com/a.py")), 'runs[0].results[0]: URI "https://example.com/a.py" is not a file URI'],
    [log(at("file://evil.example/a.py")), 'runs[0].results[0]: URI "file://evil.example/a.py" names another host'],
    [log(at("a%E0%A4%A.py")), 'runs[0].results[0]: URI "a%E0%A4%A.py" has a malformed percent-escape'],
    [log(at("a.py", { uriBaseId: "A" }), { originalUriBaseIds: { A: { uri: "x/", uriBaseId: "A" } } }), "runs[0].results[0]: uriBaseId chain is deeper than 8"],
    [log({ ...at("a.py"), level: "critical" }), 'runs[0].results[0]: level "critical" is not a SARIF level; reported as a warning'],
    [log({ ...at("a.py"), message: { markdown: "**m**" } }), "runs[0].results[0]: has no message"],
    [log(7), "runs[0].results[0] is not an object"],
    [JSON.stringify({ runs: [{ results: {} }] }), "runs[0].results is not an array"],
    [JSON.stringify({ version: "2.1.0" }), "output is not a SARIF log: `runs` is not an array"],
  ])("reports %s", (output, problem) => {
    expect(parseSarif(output, context).problems).toEqual([problem]);
  });
});
