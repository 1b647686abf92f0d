import { describe, expect, it } from "vitest";
import { readFixture } from "./fixtures/read-fixture.js";
import { parseErrorformat } from "./parse-errorformat.js";

const context = { helper: "lint" };

describe("parseErrorformat on real tool output", () => {
  it("reads flake8 (real run in localhost/reviewbot/python)", () => {
    const outcome = parseErrorformat(readFixture("flake8.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(9);
    expect(outcome.findings[0]).toEqual({
      path: "./app.py", line: 1, endLine: null, column: 1, severity: "warning",
      message: "'os' imported but unused", rule: "F401", helper: "lint",
    });
    expect(outcome.findings.at(-1)).toMatchObject({ line: 5, column: 7, rule: "F821", message: "undefined name 'undefined_name'" });
  });

  it("reads pylint's text format, skipping its header and score lines", () => {
    const outcome = parseErrorformat(readFixture("pylint.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(12);
    expect(outcome.findings[0]).toMatchObject({
      path: "app.py", line: 3, column: null, rule: "W0311", severity: "warning",
      message: "Bad indentation. Found 2 spaces, expected 4 (bad-indentation)",
    });
    expect(outcome.findings.map((finding) => finding.severity)).toContain("notice");
    expect(outcome.findings.find((finding) => finding.rule === "E0602")).toMatchObject({ severity: "error", column: 6 });
  });

  it("reads pylint's parseable format", () => {
    const outcome = parseErrorformat(readFixture("pylint-parseable.txt"), context);
    expect(outcome.findings).toHaveLength(12);
    expect(outcome.findings[4]).toMatchObject({ line: 2, column: null, rule: "C0116", severity: "notice", message: "Missing function or method docstring" });
  });

  it("reads tsc --pretty false", () => {
    const outcome = parseErrorformat(readFixture("tsc.txt"), context);
    expect(outcome.findings).toEqual([
      { path: "app.ts", line: 1, endLine: null, column: 7, severity: "error", message: "Type 'string' is not assignable to type 'number'.", rule: "TS2322", helper: "lint" },
      { path: "app.ts", line: 2, endLine: null, column: 40, severity: "error", message: "Type 'string' is not assignable to type 'number'.", rule: "TS2322", helper: "lint" },
    ]);
  });
});

describe("parseErrorformat line shapes", () => {
  it.each([
    ["a.go:12:3: error strings should not end with punctuation", { path: "a.go", line: 12, column: 3, rule: null, severity: "warning", message: "error strings should not end with punctuation" }],
    ["a.sh:4: missing quote", { path: "a.sh", line: 4, column: null, rule: null }],
    ["src/x.c:9:2: error: expected ';' before '}' token", { line: 9, column: 2, severity: "error", rule: null, message: "expected ';' before '}' token" }],
    ["m.py:5: error: Name \"x\" is not defined  [name-defined]", { severity: "error", rule: "name-defined", message: "Name \"x\" is not defined" }],
    ["m.py:2: note: Revealed type is \"int\"", { severity: "notice", rule: null }],
    ["a.py:1:80: E501 line too long (88 > 79 characters)", { rule: "E501", message: "line too long (88 > 79 characters)" }],
    ["a.py:4:5: SIM102 Use a single if-statement", { rule: "SIM102", message: "Use a single if-statement" }],
    ["a.py:4:5: PLR0913 Too many arguments", { rule: "PLR0913" }],
    ["m.py:5: error: list[int] is fine [misc]", { rule: "misc", message: "list[int] is fine" }],
    ["m.py:5: error: ends in a [Bracket]", { rule: null, message: "ends in a [Bracket]" }],
    ["a.py:3:0: R1705: Unnecessary \"else\" after \"return\" (no-else-return)", { rule: "R1705", severity: "notice", column: null }],
    ["a.py:3:1: F0001: fatal (parse-error)", { rule: "F0001", severity: "error" }],
    ["a.py:7:1: message with 12:3: inside", { line: 7, column: 1, message: "message with 12:3: inside" }],
    ["a.py:7:1: trailing CR\r", { message: "trailing CR" }],
  ])("reads %j", (line, expected) => {
    const outcome = parseErrorformat(line, context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.findings[0]).toMatchObject(expected);
  });

  it.each([
    ["a.py:0:0: whole file", { line: null, column: null }],
    ["a.py:99999999999:1: huge line", null],
    ["a.py:1:99999999999: huge column", null],
  ])("bounds positions in %j", (line, expected) => {
    const outcome = parseErrorformat(line, context);
    if (expected === null) {
      expect(outcome.findings).toEqual([]);
      expect(outcome.problems[0]).toMatch(/^line 1: (line|column) 99999999999 is not a positive integer$/);
    } else {
      expect(outcome.findings[0]).toMatchObject(expected);
    }
  });

  it.each([
    ["<html><body>502 Bad Gateway</body></html>"],
    ["Traceback (most recent call last):\n  File \"x\", line 3\nValueError"],
    ["a.py:-3:1: negative"],
    ["a.py:NaN:1: not a number"],
  ])("notes output with no finding line: %j", (output) => {
    const outcome = parseErrorformat(output, context);
    expect(outcome.findings).toEqual([]);
    expect(outcome.problems).toEqual([expect.stringMatching(/^no line of the output has the form file:line\[:col\]: message/)]);
  });

  it("is silent on empty output and skips a message-less line with a problem", () => {
    expect(parseErrorformat("", context)).toEqual({ findings: [], problems: [] });
    expect(parseErrorformat("a.py:3: ", context).problems).toEqual(["line 1: has no message"]);
  });
});

describe("parseErrorformat on pathological lines", () => {
  // Each would take minutes with a backtracking pattern; linear parsing takes milliseconds.
  it.each([
    ["spaces before a missing code", `a.py:1: error: x${" ".repeat(200_000)}y`],
    ["spaces before a bracket", `a.py:1: error: x${" ".repeat(200_000)}[`],
    ["digits without a colon", `a.py:${"1".repeat(200_000)}x`],
    ["a long file name", `${"a".repeat(200_000)}(1,`],
    ["many colons", ":1".repeat(100_000)],
  ])("reads %s in linear time", (_name, line) => {
    parseErrorformat(line, context);
    // No time assertion (speed targets live in bench/): a catastrophic regex would outlast the 20 s.
  }, 20_000);
});
