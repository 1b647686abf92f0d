import type { PullDiff } from "@reviewbot/overlay/pull-diff";
import { describe, expect, it } from "vitest";
import { filterFindings, type FilterMode } from "./diff-filter.js";
import type { Finding } from "./finding.js";

const diff: PullDiff = {
  baseSha: "b",
  headSha: "h",
  fromSha: "b",
  files: [
    {
      path: "src/app.py",
      previousPath: null,
      status: "modified",
      binary: false,
      addedLines: [
        { start: 10, end: 12 },
        { start: 20, end: 20 },
      ],
      hunks: [
        { start: 7, end: 15 },
        { start: 17, end: 23 },
      ],
      baseHunks: [
        { start: 7, end: 12 },
        { start: 14, end: 19 },
      ],
    },
    {
      path: "src/new-name.py",
      previousPath: "src/old-name.py",
      status: "renamed",
      binary: false,
      addedLines: [{ start: 3, end: 3 }],
      hunks: [{ start: 1, end: 6 }],
      baseHunks: [{ start: 1, end: 6 }],
    },
    { path: "src/pure-rename.py", previousPath: "src/was.py", status: "renamed", binary: false, addedLines: [], hunks: [], baseHunks: [] },
    { path: "src/gone.py", previousPath: null, status: "deleted", binary: false, addedLines: [], hunks: [], baseHunks: [] },
    { path: "logo.png", previousPath: null, status: "added", binary: true, addedLines: [], hunks: [], baseHunks: [] },
  ],
};

const finding = (path: string, line: number | null, endLine: number | null = null): Finding => ({
  path,
  line,
  endLine,
  column: null,
  severity: "warning",
  message: "m",
  rule: null,
  helper: "h",
});

// Expected outcome per mode: [added, diff_context, file, nofilter].
const CASES: readonly (readonly [string, Finding, readonly [boolean, boolean, boolean, boolean]])[] = [
  ["an added line", finding("src/app.py", 11), [true, true, true, true]],
  ["the first and last added line", finding("src/app.py", 20), [true, true, true, true]],
  ["a context line", finding("src/app.py", 8), [false, true, true, true]],
  ["a hunk's last context line", finding("src/app.py", 23), [false, true, true, true]],
  ["an untouched line of a changed file", finding("src/app.py", 40), [false, false, true, true]],
  ["a line just outside a hunk", finding("src/app.py", 16), [false, false, true, true]],
  ["no line, changed file", finding("src/app.py", null), [false, false, true, true]],
  ["no line, unchanged file", finding("README.md", null), [false, false, false, true]],
  ["an unchanged file", finding("src/other.py", 11), [false, false, false, true]],
  ["multi-line, starting on an added line", finding("src/app.py", 12, 30), [true, true, true, true]],
  ["multi-line, starting before the added lines", finding("src/app.py", 8, 11), [false, true, true, true]],
  ["a renamed file by its new path", finding("src/new-name.py", 3), [true, true, true, true]],
  ["a renamed file by its old path", finding("src/old-name.py", 3), [false, false, false, true]],
  ["a pure rename", finding("src/pure-rename.py", 1), [false, false, true, true]],
  ["a deleted file", finding("src/gone.py", 1), [false, false, false, true]],
  ["a binary file", finding("logo.png", null), [false, false, true, true]],
];
const MODES: readonly FilterMode[] = ["added", "diff_context", "file", "nofilter"];

describe("filterFindings", () => {
  it.each(CASES.flatMap(([name, input, expected]) => MODES.map((mode, index) => [mode, name, input, expected[index]] as const)))(
    "%s keeps %s: %s",
    (mode, _name, input, keep) => {
      const result = filterFindings([input], diff, mode);
      expect(result).toEqual({ kept: keep ? [input] : [], dropped: keep ? 0 : 1, mode });
    },
  );

  it("defaults to added, keeps order and counts what it dropped", () => {
    const findings = CASES.map(([, input]) => input);
    const result = filterFindings(findings, diff);
    expect(result.mode).toBe("added");
    expect(result.kept).toEqual(findings.filter((_, index) => CASES[index]?.[2][0]));
    expect(result.dropped).toBe(findings.length - result.kept.length);
  });

  it("keeps nothing of an empty diff except under nofilter", () => {
    const empty: PullDiff = { ...diff, files: [] };
    expect(filterFindings([finding("a", 1)], empty, "file")).toEqual({ kept: [], dropped: 1, mode: "file" });
    expect(filterFindings([finding("a", 1)], empty, "nofilter").kept).toHaveLength(1);
  });
});
