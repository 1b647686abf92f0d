import { describe, expect, it } from "vitest";
import { toRanges } from "./line-ranges.js";

describe("toRanges", () => {
  it.each([
    [[], []],
    [[5], [{ start: 5, end: 5 }]],
    [
      [3, 4, 5, 9],
      [
        { start: 3, end: 5 },
        { start: 9, end: 9 },
      ],
    ],
    [
      [1, 3, 5],
      [
        { start: 1, end: 1 },
        { start: 3, end: 3 },
        { start: 5, end: 5 },
      ],
    ],
  ])("collapses %j", (lines, expected) => {
    expect(toRanges(lines)).toEqual(expected);
  });
});
