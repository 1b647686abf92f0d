import { describe, expect, it } from "vitest";
import { hostileMessage, LONG_PATH, readOutput, repeatTo, KEPT_LONG_PATHS_GROWTH_BOUND } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio } from "./fixtures/time-ratio.js";
import { parseRuffJson } from "./parse-ruff-json.js";

const context = { helper: "ruff" };

describe("parseRuffJson", () => {
  it("reads Ruff's JSON output, syntax errors included", () => {
    const outcome = parseRuffJson(readFixture("ruff.json"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      { path: "/work/app.py", line: 1, endLine: 1, column: 8, severity: "error", message: "`os` imported but unused", rule: "F401", helper: "ruff" },
      {
        path: "/work/pkg/mod.py",
        line: 9,
        endLine: 9,
        column: 13,
        severity: "error",
        message: "Comparison to `None` should be `cond is None`",
        rule: "E711",
        helper: "ruff",
      },
      {
        path: "/work/broken.py",
        line: 3,
        endLine: 4,
        column: 10,
        severity: "error",
        message: "SyntaxError: Expected ')', found newline",
        rule: null,
        helper: "ruff",
      },
    ]);
  });

  it.each([
    [{ F401: "notice" }, ["notice", "error", "error"]],
    [{ default: "warning", E711: "notice" }, ["warning", "notice", "warning"]],
  ] as const)("applies the severity map %j", (map, expected) => {
    const outcome = parseRuffJson(readFixture("ruff.json"), { helper: "ruff", severity: map });
    expect(outcome.findings.map((finding) => finding.severity)).toEqual(expected);
  });

  it.each([
    ['{"code":"F401"}', "output is not Ruff JSON: the document is not an array"],
    ['[{"code":"F401","message":"m","filename":"a.py","location":{"row":0.5,"column":1}}]', "[0]: line 0.5 is not a positive integer"],
    ['[{"code":"F401","message":"m","filename":"a.py","location":{"row":2,"column":-7}}]', "[0]: column -7 is not a positive integer"],
    ['[{"code":"F401","message":"","filename":"a.py"}]', "[0]: has no message"],
    ['["F401"]', "[0]: has no file path"],
  ])("reports %s", (output, problem) => {
    expect(parseRuffJson(output, context)).toEqual({ findings: [], problems: [problem] });
  });
});

describe("parseRuffJson under hostile output", () => {
  const violation = (filename: string, message: string, row: number) =>
    JSON.stringify({ code: "E501", filename, message, location: { row, column: 1 }, end_location: { row, column: 2 } });
  const hostile = (size: number) => `\ufeff[${repeatTo(size, 7, ",", (index) => violation(LONG_PATH, hostileMessage(index, 60), index + 1))}]`;
  const benign = (size: number) => {
    const real = (JSON.parse(readFixture("ruff.json")) as unknown[]).map((entry) => JSON.stringify(entry));
    return `[${repeatTo(size, 8, ",", (index) => real[index % real.length] ?? "")}]`;
  };

  it("reads output that starts with a byte-order mark", () => {
    expect(parseRuffJson(`\ufeff${readFixture("ruff.json")}`, context)).toEqual(parseRuffJson(readFixture("ruff.json"), context));
  });

  it.each([
    ["hostile", KEPT_LONG_PATHS_GROWTH_BOUND, hostile, 250_000],
    ["benign", 6, benign, 500_000],
  ])("reads %s output in linear time (4× the input, at most %s× the time)", (_name, bound, make, size) => {
    expect(growthRatio((output) => readOutput("ruff-json", output), make, size)).toBeLessThanOrEqual(bound);
  });
});
