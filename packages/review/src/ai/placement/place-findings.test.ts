import { describe, expect, it } from "vitest";
import type { ChangedFile, PullDiff } from "@reviewbot/overlay/pull-diff";
import { placeFindings, type DiffSide } from "./place-findings.js";
import type { AiFinding } from "../tools/submit-review.js";

const renamed: ChangedFile = {
  path: "src/new.ts",
  previousPath: "src/old.ts",
  status: "renamed",
  binary: false,
  addedLines: [{ start: 3, end: 3 }],
  hunks: [{ start: 1, end: 6 }],
  baseHunks: [{ start: 1, end: 5 }],
};
// src/a.ts: RIGHT hunks 10-20 and 30-35, LEFT hunks 8-15 and 26-31; src/new.ts renamed from
// src/old.ts: RIGHT 1-6, LEFT 1-5.
const diff: PullDiff = {
  baseSha: "b".repeat(40),
  headSha: "h".repeat(40),
  fromSha: "f".repeat(40),
  files: [
    {
      path: "src/a.ts",
      previousPath: null,
      status: "modified",
      binary: false,
      addedLines: [{ start: 12, end: 14 }],
      hunks: [
        { start: 10, end: 20 },
        { start: 30, end: 35 },
      ],
      baseHunks: [
        { start: 8, end: 15 },
        { start: 26, end: 31 },
      ],
    },
    renamed,
  ],
};

const lines = (count: number, name: string) => Array.from({ length: count }, (_, index) => `  const ${name}${index + 1} = ${index + 1};`);
const files: Record<DiffSide, Record<string, readonly string[]>> = {
  RIGHT: { "src/a.ts": lines(40, "head"), "src/new.ts": lines(6, "renamed") },
  LEFT: { "src/a.ts": lines(35, "base"), "src/old.ts": lines(5, "old") },
};
const reads: string[] = [];
const lineText = (side: DiffSide, path: string, line: number) => {
  reads.push(`${side}:${path}:${line}`);
  return Promise.resolve(files[side][path]?.[line - 1] ?? null);
};

const finding = (change: Partial<AiFinding> = {}): AiFinding => ({
  path: "src/a.ts",
  side: "RIGHT",
  line: 12,
  severity: "warning",
  category: "bug",
  title: "Wrong value",
  body: "body",
  anchorText: "const head12 = 12;",
  ...change,
});
const place = (...findings: AiFinding[]) => placeFindings(findings, diff, lineText);
const reasonFor = async (change: Partial<AiFinding>) => (await place(finding(change))).unplaced.map((entry) => entry.reason);

describe("placeFindings", () => {
  it.each([
    ["a line inside a RIGHT hunk", {}],
    ["the first and last lines of a hunk", { line: 20, startLine: 10, anchorText: "const head20 = 20;" }],
    ["a range inside the second hunk", { startLine: 30, line: 35, anchorText: "const head35 = 35;" }],
    ["anchorText with other whitespace", { anchorText: "\tconst   head12 =\t12; \n" }],
    ["a LEFT line inside a base hunk", { side: "LEFT", line: 27, anchorText: "const base27 = 27;" }],
    ["a LEFT line of a renamed file, read at its previous path", { path: "src/new.ts", side: "LEFT", line: 5, anchorText: "const old5 = 5;" }],
    ["a RIGHT suggestion that changes the line", { suggestion: "  const head12 = 13;" }],
    ["a suggestion changing only indentation", { suggestion: "const head12 = 12;" }],
  ] as const)("places %s", async (_name, change) => {
    const result = await place(finding(change));
    expect(result.unplaced).toEqual([]);
    expect(result.placed).toEqual([finding(change)]);
  });

  it.each([
    ["a path not in the diff", { path: "src/b.ts" }, "path not in the diff"],
    ["a renamed file's old path", { path: "src/old.ts" }, "path not in the diff"],
    ["a line between hunks", { line: 25, anchorText: "const head25 = 25;" }, "line 25 is outside every hunk of the RIGHT side"],
    ["a line past the last hunk", { line: 36, anchorText: "const head36 = 36;" }, "line 36 is outside every hunk of the RIGHT side"],
    // Line 18 is in a RIGHT hunk, but the LEFT side's hunks are 8-15 and 26-31.
    ["a LEFT line outside the base hunks", { side: "LEFT", line: 18, anchorText: "const base18 = 18;" }, "line 18 is outside every hunk of the LEFT side"],
    ["a range across two hunks", { startLine: 18, line: 31, anchorText: "const head31 = 31;" }, "lines 18-31 are not all in one hunk of the RIGHT side"],
    ["a range starting before its hunk", { startLine: 5, line: 12 }, "lines 5-12 are not all in one hunk of the RIGHT side"],
    ["startLine after line", { startLine: 14 }, "startLine 14 is after line 12"],
    ["anchorText of the line before (off by one)", { anchorText: "const head11 = 11;" }, "anchorText does not match line 12"],
    ["anchorText of the other side", { anchorText: "const base12 = 12;" }, "anchorText does not match line 12"],
    ["anchorText missing a word", { anchorText: "const head12 =" }, "anchorText does not match line 12"],
    ["an empty anchorText", { anchorText: "" }, "anchorText does not match line 12"],
    ["a suggestion on LEFT", { side: "LEFT", line: 12, anchorText: "const base12 = 12;", suggestion: "x" }, "suggestion on LEFT"],
    ["a suggestion equal to its line", { suggestion: "  const head12 = 12;" }, "suggestion equals current text"],
    ["a suggestion equal to its line but for a final newline", { suggestion: "  const head12 = 12;\n" }, "suggestion equals current text"],
    ["a suggestion equal to its lines", { startLine: 11, suggestion: "  const head11 = 11;\r\n  const head12 = 12;" }, "suggestion equals current text"],
  ] as const)("refuses %s", async (_name, change, reason) => {
    expect(await reasonFor(change)).toEqual([reason]);
  });

  it("refuses a line the file does not have, inside a hunk (a diff and a file out of step)", async () => {
    const short: PullDiff = { ...diff, files: [{ ...renamed, hunks: [{ start: 1, end: 9 }] }] };
    const result = await placeFindings([finding({ path: "src/new.ts", line: 8, anchorText: "" })], short, lineText);
    expect(result.unplaced.map((entry) => entry.reason)).toEqual(["line 8 does not exist on the RIGHT side"]);
  });

  it("reads the head for RIGHT and the base at the previous path for LEFT", async () => {
    reads.length = 0;
    await place(finding(), finding({ path: "src/new.ts", side: "LEFT", line: 2, anchorText: "const old2 = 2;" }));
    expect(reads).toEqual(["RIGHT:src/a.ts:12", "LEFT:src/old.ts:2"]);
  });

  it("places a multi-line suggestion that changes one of its lines", async () => {
    const change = { startLine: 11, suggestion: "  const head11 = 11;\n  const head12 = 99;" };
    expect((await place(finding(change))).placed).toEqual([finding(change)]);
  });

  it("drops startLine when it equals line", async () => {
    const result = await place(finding({ startLine: 12 }));
    expect(result.placed).toEqual([finding()]);
    expect(result.placed[0]).not.toHaveProperty("startLine");
  });

  it("keeps one of identical findings (path, side, line, title) and says why the others went", async () => {
    const result = await place(
      finding(),
      finding({ body: "said again" }),
      finding({ side: "LEFT", anchorText: "const base12 = 12;" }),
      finding({ title: "Another problem" }),
    );
    expect(result.placed).toEqual([finding(), finding({ side: "LEFT", anchorText: "const base12 = 12;" }), finding({ title: "Another problem" })]);
    expect(result.unplaced).toEqual([{ finding: finding({ body: "said again" }), reason: "duplicate of an earlier finding" }]);
  });

  it("places a copy whose first version could not be placed", async () => {
    const result = await place(finding({ anchorText: "wrong" }), finding());
    expect(result.placed).toEqual([finding()]);
    expect(result.unplaced.map((entry) => entry.reason)).toEqual(["anchorText does not match line 12"]);
  });
});
