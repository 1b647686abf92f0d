import { describe, expect, it } from "vitest";
import { matchFindings, type ModelFinding } from "./match-findings.js";
import type { KnownFinding } from "./suite-manifest.js";

const known = (path: string, startLine: number, endLine: number, side: "RIGHT" | "LEFT" = "RIGHT"): KnownFinding => ({
  path,
  startLine,
  endLine,
  side,
  description: "d",
});
const finding = (path: string, startLine: number, line: number, side: "RIGHT" | "LEFT" = "RIGHT"): ModelFinding => ({
  path,
  side,
  startLine,
  line,
  placed: true,
});
const options = { window: 3, renames: new Map<string, string>() };

describe("matchFindings", () => {
  it("pairs one of two findings on one known; the other stays unmatched", () => {
    expect(matchFindings([finding("a.ts", 10, 10), finding("a.ts", 11, 11)], [known("a.ts", 10, 11)], options)).toEqual([[0, 0]]);
  });

  it("pairs a finding spanning two knowns with one of them only", () => {
    expect(matchFindings([finding("a.ts", 10, 30)], [known("a.ts", 12, 12), known("a.ts", 28, 28)], options)).toEqual([[0, 0]]);
  });

  it("finds the assignment that pairs most: a spanning finding yields the known another finding can only take", () => {
    // Greedy would give known 0 to finding 0 and leave finding 1 (which only reaches known 0) alone.
    const pairs = matchFindings([finding("a.ts", 10, 30), finding("a.ts", 12, 12)], [known("a.ts", 12, 12), known("a.ts", 28, 28)], options);
    expect(pairs).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it.each([
    ["3 lines below the range", 23, true],
    ["4 lines below the range", 24, false],
    ["3 lines above the range", 7, true],
    ["4 lines above the range", 6, false],
  ])("with the default window, a finding %s matches: %s", (_what, line, matches) => {
    expect(matchFindings([finding("a.ts", line, line)], [known("a.ts", 10, 20)], options)).toHaveLength(matches ? 1 : 0);
  });

  it("takes the window it is given", () => {
    expect(matchFindings([finding("a.ts", 30, 30)], [known("a.ts", 10, 20)], { ...options, window: 10 })).toHaveLength(1);
    expect(matchFindings([finding("a.ts", 21, 21)], [known("a.ts", 10, 20)], { ...options, window: 0 })).toHaveLength(0);
  });

  it("matches LEFT-side findings only with LEFT-side knowns (line numbers of the base)", () => {
    expect(matchFindings([finding("a.ts", 5, 5, "LEFT")], [known("a.ts", 5, 5, "LEFT")], options)).toHaveLength(1);
    expect(matchFindings([finding("a.ts", 5, 5, "LEFT")], [known("a.ts", 5, 5, "RIGHT")], options)).toHaveLength(0);
    expect(matchFindings([finding("a.ts", 5, 5, "RIGHT")], [known("a.ts", 5, 5, "LEFT")], options)).toHaveLength(0);
  });

  it("follows renames: a known on the base path matches a finding on the head path, and not without the rename", () => {
    const renames = new Map([["old/name.ts", "new/name.ts"]]);
    expect(matchFindings([finding("new/name.ts", 4, 4, "LEFT")], [known("old/name.ts", 4, 4, "LEFT")], { ...options, renames })).toHaveLength(1);
    expect(matchFindings([finding("new/name.ts", 4, 4)], [known("new/name.ts", 4, 4)], { ...options, renames })).toHaveLength(1);
    expect(matchFindings([finding("new/name.ts", 4, 4, "LEFT")], [known("old/name.ts", 4, 4, "LEFT")], options)).toHaveLength(0);
  });

  it("never matches another file", () => {
    expect(matchFindings([finding("b.ts", 10, 10)], [known("a.ts", 10, 10)], options)).toEqual([]);
  });
});
