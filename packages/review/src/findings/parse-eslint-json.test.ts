import { describe, expect, it } from "vitest";
import { hostileMessage, LONG_PATH, readOutput, repeatTo } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio, retainedBytes } from "./fixtures/time-ratio.js";
import { parseEslintJson } from "./parse-eslint-json.js";

const context = { helper: "eslint" };

describe("parseEslintJson", () => {
  it("reads real ESLint output (localhost/reviewbot/node), fatal parse errors included", () => {
    const outcome = parseEslintJson(readFixture("eslint.json"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "/work/app.js",
        line: 1,
        endLine: 1,
        column: 7,
        severity: "error",
        message: "'unused' is assigned a value but never used.",
        rule: "@typescript-eslint/no-unused-vars",
        helper: "eslint",
      },
      {
        path: "/work/app.js",
        line: 3,
        endLine: 3,
        column: 15,
        severity: "error",
        message: "Unexpected 'debugger' statement.",
        rule: "no-debugger",
        helper: "eslint",
      },
      { path: "/work/app.js", line: 4, endLine: 4, column: 13, severity: "error", message: "'y' is not defined.", rule: "no-undef", helper: "eslint" },
      {
        path: "/work/app.ts",
        line: 1,
        endLine: 1,
        column: 7,
        severity: "error",
        message: "'n' is assigned a value but never used.",
        rule: "@typescript-eslint/no-unused-vars",
        helper: "eslint",
      },
      {
        path: "/work/broken.js",
        line: 1,
        endLine: null,
        column: 9,
        severity: "error",
        message: "Parsing error: Identifier expected.",
        rule: null,
        helper: "eslint",
      },
    ]);
  });

  it.each([
    [1, undefined, "warning"],
    [2, undefined, "error"],
    [0, undefined, "notice"],
    [1, { "no-debugger": "error" }, "error"],
    [2, { warning: "notice", error: "notice" }, "notice"],
    [1, { default: "notice" }, "notice"],
  ] as const)("maps severity %j with map %j to %s", (severity, map, expected) => {
    const output = JSON.stringify([{ filePath: "a.js", messages: [{ ruleId: "no-debugger", severity, message: "m", line: 1, column: 1 }] }]);
    expect(parseEslintJson(output, { helper: "eslint", severity: map }).findings[0]?.severity).toBe(expected);
  });

  it("keeps a message without a line (an ignored-file warning) as a file-level finding", () => {
    const output = JSON.stringify([
      { filePath: "/work/dist/a.js", messages: [{ fatal: false, severity: 1, message: "File ignored because of a matching ignore pattern." }] },
    ]);
    expect(parseEslintJson(output, context).findings[0]).toMatchObject({ line: null, column: null, severity: "warning", rule: null });
  });

  it.each([
    ['{"filePath":"a.js"}', "output is not ESLint JSON: the document is not an array"],
    ['[{"filePath":"a.js","messages":{}}]', "[0] is not an ESLint file result with a messages array"],
    ["[null]", "[0] is not an ESLint file result with a messages array"],
    ['[{"filePath":7,"messages":[{"message":"m","severity":2}]}]', "[0].messages[0]: has no file path"],
    ['[{"filePath":"a.js","messages":[{"message":"m","severity":2,"line":-1}]}]', "[0].messages[0]: line -1 is not a positive integer"],
    ['[{"filePath":"a.js","messages":[{"message":"m","severity":2,"line":1.5}]}]', "[0].messages[0]: line 1.5 is not a positive integer"],
    ['[{"filePath":"a.js","messages":[{"message":"m","severity":2,"line":"3"}]}]', '[0].messages[0]: line "3" is not a positive integer'],
    ['[{"filePath":"a.js","messages":[{"message":"m","severity":2,"line":1,"ruleId":[1]}]}]', "[0].messages[0]: rule is an array, not a string"],
  ])("reports %s", (output, problem) => {
    const outcome = parseEslintJson(output, context);
    expect(outcome.findings).toEqual([]);
    expect(outcome.problems).toEqual([problem]);
  });
});

describe("parseEslintJson under hostile output", () => {
  // One file result whose messages all share one long filePath, each message full of whitespace
  // runs and escapes; and real ESLint output repeated over distinct files.
  const messages = (path: string, size: number, text: (index: number) => string) =>
    JSON.stringify([
      {
        filePath: path,
        messages: JSON.parse(
          `[${repeatTo(size, 3, ",", (index) => JSON.stringify({ ruleId: "no-undef", severity: 2, message: text(index), line: index + 1, column: 1 }))}]`,
        ) as unknown,
      },
    ]);
  const hostile = (size: number) => messages(LONG_PATH, size, (index) => hostileMessage(index, 60));
  const benign = (size: number) => {
    const files = JSON.parse(readFixture("eslint.json")) as { filePath: string }[];
    return JSON.stringify(
      JSON.parse(
        `[${repeatTo(size, 4, ",", (index) => JSON.stringify(files.map((file) => ({ ...file, filePath: `/work/src/${index}/${file.filePath.slice(6)}` }))).slice(1, -1))}]`,
      ),
    );
  };

  it.each([
    ["hostile", hostile, 250_000],
    ["benign", benign, 500_000],
  ])("reads %s output in linear time (4× the input, at most 6× the time)", (_name, make, size) => {
    expect(growthRatio((output) => readOutput("eslint-json", output), make, size)).toBeLessThanOrEqual(6);
  });

  it("keeps one copy of a long path shared by every message of 1 MiB of output", () => {
    const short = messages("/work/app.js", 1 << 20, () => "m");
    const long = messages(LONG_PATH, 1 << 20, () => "m");
    const findings = readOutput("eslint-json", long);
    expect(findings.length).toBeGreaterThan(10_000);
    expect(findings.every((finding) => finding.path === LONG_PATH.slice("/work/".length))).toBe(true);
    // Copied per finding, 4 kB × 10k+ findings would hold 40 MB more than the short path does.
    expect(retainedBytes(() => readOutput("eslint-json", long))).toBeLessThan(2 * retainedBytes(() => readOutput("eslint-json", short)) + (1 << 20));
  });
});
