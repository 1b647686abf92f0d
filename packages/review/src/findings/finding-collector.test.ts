import { describe, expect, it } from "vitest";
import { createFindingCollector, decimalOrText, MAX_POSITION, MAX_PROBLEMS, type RawFinding } from "./finding-collector.js";

const raw = (fields: Partial<RawFinding>): RawFinding => ({ path: "a.py", message: "m", toolLevel: null, fallback: "warning", ...fields });

describe("createFindingCollector", () => {
  it.each([
    [
      { line: 3, endLine: 5, column: 2 },
      { line: 3, endLine: 5, column: 2 },
    ],
    [
      { line: 3, endLine: 2 },
      { line: 3, endLine: null },
    ],
    [
      { endLine: 4, column: 2 },
      { line: null, endLine: null, column: null },
    ],
    [
      { line: 0, column: 0 },
      { line: null, column: null },
    ],
    [{ line: MAX_POSITION }, { line: MAX_POSITION }],
    [{ rule: "" }, { rule: null }],
    [{ rule: null }, { rule: null }],
  ])("keeps %j as %j", (fields, expected) => {
    const collector = createFindingCollector({ helper: "h" });
    collector.add(raw(fields), "x");
    expect(collector.outcome()).toEqual({ findings: [expect.objectContaining(expected)], problems: [] });
  });

  it.each([
    [{ line: -1 }, "x: line -1 is not a positive integer"],
    [{ line: Number.NaN }, "x: line NaN is not a positive integer"],
    [{ line: Number.POSITIVE_INFINITY }, "x: line Infinity is not a positive integer"],
    [{ line: MAX_POSITION + 1 }, `x: line ${MAX_POSITION + 1} is not a positive integer`],
    [{ line: 2 ** 64 }, "x: line 18446744073709552000 is not a positive integer"],
    [{ line: "3" }, 'x: line "3" is not a positive integer'],
    [{ line: [3] }, "x: line an array is not a positive integer"],
    [{ line: 3, endLine: {} }, "x: end line an object is not a positive integer"],
    [{ line: 3, column: 1.5 }, "x: column 1.5 is not a positive integer"],
    [{ path: "" }, "x: has no file path"],
    [{ path: 7 }, "x: has no file path"],
    [{ message: "  \n" }, "x: has no message"],
    [{ message: null }, "x: has no message"],
    [{ rule: 5 }, "x: rule is 5, not a string"],
  ])("drops %j with a problem", (fields, problem) => {
    const collector = createFindingCollector({ helper: "h" });
    collector.add(raw(fields), "x");
    expect(collector.outcome()).toEqual({ findings: [], problems: [problem] });
  });

  it("caps the problems it lists and counts the rest", () => {
    const collector = createFindingCollector({ helper: "h" });
    for (let index = 0; index < 1000; index += 1) collector.problem(`p${index}`);
    const { problems } = collector.outcome();
    expect(problems).toHaveLength(MAX_PROBLEMS + 1);
    expect(problems.at(-1)).toBe(`… and ${1000 - MAX_PROBLEMS} more problems`);
  });
});

describe("decimalOrText", () => {
  it.each([
    ["12", 12],
    ["007", 7],
    ["-1", "-1"],
    ["1e3", "1e3"],
    ["", ""],
    [undefined, undefined],
    ["9".repeat(16), "9".repeat(16)],
  ])("reads %j as %j", (text, value) => {
    expect(decimalOrText(text)).toBe(value);
  });
});
