import { describe, expect, it } from "vitest";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio, randomText } from "./fixtures/time-ratio.js";
import { parseErrorformat } from "./parse-errorformat.js";

const context = { helper: "lint" };

describe("parseErrorformat on real tool output", () => {
  it("reads flake8 (real run in localhost/reviewbot/python)", () => {
    const outcome = parseErrorformat(readFixture("flake8.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(9);
    expect(outcome.findings[0]).toEqual({
      path: "./app.py",
      line: 1,
      endLine: null,
      column: 1,
      severity: "warning",
      message: "'os' imported but unused",
      rule: "F401",
      helper: "lint",
    });
    expect(outcome.findings.at(-1)).toMatchObject({ line: 5, column: 7, rule: "F821", message: "undefined name 'undefined_name'" });
  });

  it("reads pylint's text format, skipping its header and score lines", () => {
    const outcome = parseErrorformat(readFixture("pylint.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(12);
    expect(outcome.findings[0]).toMatchObject({
      path: "app.py",
      line: 3,
      column: null,
      rule: "W0311",
      severity: "warning",
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
      {
        path: "app.ts",
        line: 1,
        endLine: null,
        column: 7,
        severity: "error",
        message: "Type 'string' is not assignable to type 'number'.",
        rule: "TS2322",
        helper: "lint",
      },
      {
        path: "app.ts",
        line: 2,
        endLine: null,
        column: 40,
        severity: "error",
        message: "Type 'string' is not assignable to type 'number'.",
        rule: "TS2322",
        helper: "lint",
      },
    ]);
  });
});

describe("parseErrorformat on the ` --> ` form (rustc, clippy, Ruff's full output)", () => {
  it("reads Ruff's full output (its default since 0.12), snippets and help lines skipped", () => {
    const outcome = parseErrorformat(readFixture("ruff-full.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      { path: "input.py", line: 1, endLine: null, column: 8, severity: "warning", message: "`os` imported but unused", rule: "F401", helper: "lint" },
      { path: "input.py", line: 2, endLine: null, column: 5, severity: "warning", message: "Undefined name `y`", rule: "F821", helper: "lint" },
      {
        path: "input.py",
        line: 3,
        endLine: null,
        column: 1,
        severity: "warning",
        message: "Cannot use `match` statement on Python 3.9 (syntax was added in Python 3.10)",
        rule: "invalid-syntax",
        helper: "lint",
      },
    ]);
  });

  it("reads rustc's errors with their codes, and not its summary lines", () => {
    const outcome = parseErrorformat(readFixture("rustc.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "err.rs",
        line: 3,
        endLine: null,
        column: 20,
        severity: "error",
        message: "cannot find value `undefined_name` in this scope",
        rule: "E0425",
        helper: "lint",
      },
      { path: "err.rs", line: 2, endLine: null, column: 18, severity: "error", message: "mismatched types", rule: "E0308", helper: "lint" },
    ]);
  });

  it("reads clippy's warnings with the lint its note names, skipping a sub-diagnostic's location", () => {
    const outcome = parseErrorformat(readFixture("clippy.txt"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings.map(({ path, line, column, severity, rule, message }) => ({ path, line, column, severity, rule, message }))).toEqual([
      { path: "src/main.rs", line: 2, column: 9, severity: "warning", rule: "unused_variables", message: "unused variable: `unused`" },
      { path: "src/main.rs", line: 4, column: 15, severity: "warning", rule: "clippy::if_same_then_else", message: "this `if` has identical blocks" },
      { path: "src/main.rs", line: 10, column: 8, severity: "warning", rule: "clippy::len_zero", message: "length comparison to zero" },
    ]);
  });

  it.each([
    ["error[E0425]: x\n --> C:/src/a b.rs:3:20\n", { path: "C:/src/a b.rs", line: 3, column: 20, rule: "E0425", severity: "error" }],
    ["note: a note\n   --> a.rs:7\n", { path: "a.rs", line: 7, column: null, severity: "notice" }],
    ["help: try this\n --> a.rs:1:1", { severity: "notice", message: "try this" }],
    ["E501 Line too long (100 > 88)\n --> a.py:1:89\n", { rule: "E501", message: "Line too long (100 > 88)" }],
    ["a plain header\n --> a.py:2:1\n", { rule: null, message: "a plain header" }],
    ["a.py:1:8: F401 [*] `os` imported but unused", { rule: "F401", message: "`os` imported but unused" }],
  ])("reads %j", (output, expected) => {
    const outcome = parseErrorformat(output, context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.findings[0]).toMatchObject(expected);
  });

  it("takes no location from a source snippet, even one that reads like a location", () => {
    const output = 'a.py:1:1: F401 x\n  |\n1 | s = "b.py:9: fake"\n  |\n';
    expect(parseErrorformat(output, context).findings.map((finding) => finding.path)).toEqual(["a.py"]);
  });

  it("reads output that starts with a byte-order mark", () => {
    expect(parseErrorformat(`\ufeff${readFixture("flake8.txt")}`, context)).toEqual(parseErrorformat(readFixture("flake8.txt"), context));
  });
});

describe("parseErrorformat line shapes", () => {
  it.each([
    [
      "a.go:12:3: error strings should not end with punctuation",
      { path: "a.go", line: 12, column: 3, rule: null, severity: "warning", message: "error strings should not end with punctuation" },
    ],
    ["a.sh:4: missing quote", { path: "a.sh", line: 4, column: null, rule: null }],
    ["src/x.c:9:2: error: expected ';' before '}' token", { line: 9, column: 2, severity: "error", rule: null, message: "expected ';' before '}' token" }],
    ['m.py:5: error: Name "x" is not defined  [name-defined]', { severity: "error", rule: "name-defined", message: 'Name "x" is not defined' }],
    ['m.py:2: note: Revealed type is "int"', { severity: "notice", rule: null }],
    ["a.py:1:80: E501 line too long (88 > 79 characters)", { rule: "E501", message: "line too long (88 > 79 characters)" }],
    ["a.py:4:5: SIM102 Use a single if-statement", { rule: "SIM102", message: "Use a single if-statement" }],
    ["a.py:4:5: PLR0913 Too many arguments", { rule: "PLR0913" }],
    ["m.py:5: error: list[int] is fine [misc]", { rule: "misc", message: "list[int] is fine" }],
    ["m.py:5: error: ends in a [Bracket]", { rule: null, message: "ends in a [Bracket]" }],
    ['a.py:3:0: R1705: Unnecessary "else" after "return" (no-else-return)', { rule: "R1705", severity: "notice", column: null }],
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
    ['Traceback (most recent call last):\n  File "x", line 3\nValueError'],
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
  ])(
    "reads %s in linear time",
    (_name, line) => {
      parseErrorformat(line, context);
      // No time assertion (speed targets live in bench/): a catastrophic regex would outlast the 20 s.
    },
    20_000,
  );
});

describe("parseErrorformat time", () => {
  // Long lines built to make a backtracking pattern rescan them, and seeded noise of the
  // characters the scanners look for; benign output is real tools' lines over and over.
  const hostile = (size: number) => {
    const part = Math.floor(size / 12);
    return [
      `a.py:1:${" ".repeat(part)}\u2028`,
      `a.py:1: error: x${" ".repeat(part)}y`,
      `a.py:1: error: x${" ".repeat(part)}[${"a".repeat(part)}]`,
      `a.py:${"1".repeat(part)}x`,
      ":1".repeat(part / 2),
      `${"a".repeat(part)}(1,`,
      ` --> ${":".repeat(part)}`,
      ` --> a:${"1".repeat(part)}`,
      `a.py:1: [C0114(${"x".repeat(part)}`,
      `1 ${"|".repeat(part)}`,
      randomText(11, 2 * part, [" ", "\t", ":", "1", "a", "[", "]", "(", ",", " --> ", "error: ", "E501 ", "\u2028", "\n"]),
    ].join("\n");
  };
  const benign = (size: number) =>
    randomText(12, size, [
      `${readFixture("flake8.txt")}\n`,
      `${readFixture("pylint.txt")}\n`,
      `${readFixture("ruff-full.txt")}\n`,
      `${readFixture("clippy.txt")}\n`,
      `${readFixture("tsc.txt")}\n`,
    ]);

  // Sizes at which one run takes tens of milliseconds.
  it.each([
    ["hostile", hostile, 4_000_000],
    ["benign", benign, 2_000_000],
  ])("grows linearly on %s output (4× the input, at most 6× the time)", (_name, make, size) => {
    expect(growthRatio((output) => parseErrorformat(output, context), make, size)).toBeLessThanOrEqual(6);
  });
});
