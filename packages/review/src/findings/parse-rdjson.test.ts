import { describe, expect, it } from "vitest";
import { hostileMessage, LONG_PATH, readOutput, repeatTo, KEPT_LONG_PATHS_GROWTH_BOUND } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio } from "./fixtures/time-ratio.js";
import { parseRdjson, parseRdjsonl } from "./parse-rdjson.js";

const context = { helper: "rd" };

describe("parseRdjson", () => {
  it("reads a DiagnosticResult, with the result's severity as the default", () => {
    const outcome = parseRdjson(readFixture("reviewdog.rdjson"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "src/app.js",
        line: 14,
        endLine: 14,
        column: 15,
        severity: "error",
        message: "Unexpected 'debugger' statement.",
        rule: "no-debugger",
        helper: "rd",
      },
      { path: "src/app.js", line: 2, endLine: null, column: 1, severity: "warning", message: "Prefer const.", rule: "prefer-const", helper: "rd" },
      {
        path: "/work/src/util.js",
        line: null,
        endLine: null,
        column: null,
        severity: "notice",
        message: "Consider documenting this module.",
        rule: null,
        helper: "rd",
      },
    ]);
  });

  it.each([
    ["ERROR", undefined, "error"],
    ["WARNING", undefined, "warning"],
    ["INFO", undefined, "notice"],
    ["UNKNOWN_SEVERITY", undefined, "warning"],
    [1, undefined, "error"],
    [3, undefined, "notice"],
    [42, undefined, "warning"],
    ["INFO", { INFO: "error" }, "error"],
    ["ERROR", { R: "notice" }, "notice"],
  ] as const)("maps severity %j with map %j to %s", (severity, map, expected) => {
    const output = JSON.stringify({ diagnostics: [{ message: "m", severity, code: { value: "R" }, location: { path: "a" } }] });
    expect(parseRdjson(output, { helper: "rd", severity: map }).findings[0]?.severity).toBe(expected);
  });

  it.each([
    ['{"source":{"name":"x"}}', "output is not a reviewdog DiagnosticResult: `diagnostics` is not an array"],
    ['[{"message":"m"}]', "output is not a reviewdog DiagnosticResult: `diagnostics` is not an array"],
    ['{"diagnostics":["m"]}', "diagnostics[0] is not an object"],
    ['{"diagnostics":[{"message":"m","location":{"path":"a","range":{"start":{"line":1e308}}}}]}', "diagnostics[0]: line 1e+308 is not a positive integer"],
    [
      '{"diagnostics":[{"message":"m","location":{"path":"a","range":{"start":{"line":3,"column":true}}}}]}',
      "diagnostics[0]: column a boolean is not a positive integer",
    ],
  ])("reports %s", (output, problem) => {
    expect(parseRdjson(output, context)).toEqual({ findings: [], problems: [problem] });
  });
});

describe("parseRdjsonl", () => {
  it("reads one diagnostic per line, skipping blank lines", () => {
    const outcome = parseRdjsonl(readFixture("reviewdog.rdjsonl"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "src/app.js",
        line: 14,
        endLine: null,
        column: 15,
        severity: "error",
        message: "Unexpected 'debugger' statement.",
        rule: "no-debugger",
        helper: "rd",
      },
      { path: "src/app.js", line: 2, endLine: 3, column: 1, severity: "warning", message: "Prefer const.", rule: null, helper: "rd" },
      { path: "src/util.js", line: 9, endLine: null, column: null, severity: "notice", message: "Trailing spaces.", rule: null, helper: "rd" },
    ]);
  });

  it("keeps the good lines around a broken one", () => {
    const good = '{"message":"m","location":{"path":"a"}}';
    const outcome = parseRdjsonl(`${good}\n{"message":\n${good}\n`, context);
    expect(outcome.findings).toHaveLength(2);
    expect(outcome.problems).toEqual([expect.stringMatching(/^line 2: output is not valid JSON \(/)]);
  });
});

describe("parseRdjson under hostile output", () => {
  const diagnostic = (path: string, message: string, line: number) =>
    JSON.stringify({ message, location: { path, range: { start: { line, column: 1 } } }, severity: "ERROR", code: { value: "x" } });
  const hostile = (size: number) => repeatTo(size, 9, "\n", (index) => diagnostic(LONG_PATH, hostileMessage(index, 60), index + 1));
  const benign = (size: number) => repeatTo(size, 10, "\n", (index) => readFixture("reviewdog.rdjsonl").split("\n")[index % 3] ?? "");

  it.each([
    ["reviewdog.rdjson", parseRdjson],
    ["reviewdog.rdjsonl", parseRdjsonl],
  ])("reads %s behind a byte-order mark", (name, parse) => {
    expect(parse(`\ufeff${readFixture(name)}`, context)).toEqual(parse(readFixture(name), context));
  });

  it.each([
    ["hostile rdjsonl", KEPT_LONG_PATHS_GROWTH_BOUND, hostile, "rdjsonl", 250_000],
    ["benign rdjsonl", 6, benign, "rdjsonl", 500_000],
    ["hostile rdjson", KEPT_LONG_PATHS_GROWTH_BOUND, (size: number) => `{"diagnostics":[${hostile(size).replaceAll("\n", ",")}]}`, "rdjson", 250_000],
  ] as const)("reads %s output in linear time (4× the input, at most %s× the time)", (_name, bound, make, format, size) => {
    expect(growthRatio((output) => readOutput(format, output), make, size)).toBeLessThanOrEqual(bound);
  });
});
