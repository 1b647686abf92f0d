import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { computePullDiff } from "@reviewbot/overlay/pull-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anchorHash } from "../../findings/anchor-hash.js";
import { blobLines } from "./blob-lines.js";
import { carryFindings } from "./carry-findings.js";
import { historyRepo, numberedLines, text, type FileEdits, type HistoryRepo } from "../fixtures/history-repo.js";

// base → head1 (the last review's head) → head2 (this push). The PR (base..head1) replaces line
// 10 and line 20 of src/a.ts and line 5 of src/c.ts; the last review found something on each. In
// src/left.ts it inserts ten lines on top and deletes base lines 30-31, so a base line's number
// is not its head line's: a LEFT finding is checked against the base's hunks, not the head's.
const A = numberedLines(30, "a");
const C = numberedLines(10, "c");
const L = numberedLines(40, "l");
const HEAD1_A = A.map((line, index) => (index === 9 ? "fix10" : index === 19 ? "fix20" : line));
const HEAD1_C = C.map((line, index) => (index === 4 ? "fix5" : line));
const HEAD1_L = [...numberedLines(10, "top"), ...L.filter((line) => line !== "l30" && line !== "l31")];

let repo: HistoryRepo;
let base: string;
let head1: string;

beforeAll(() => {
  repo = historyRepo("carry-findings");
  base = repo.commit(null, { "src/a.ts": text(A), "src/c.ts": text(C), "src/left.ts": text(L) });
  head1 = repo.commit(base, { "src/a.ts": text(HEAD1_A), "src/c.ts": text(HEAD1_C), "src/left.ts": text(HEAD1_L) });
});
afterAll(() => {
  repo.remove();
});

/** A finding of the last review at head1, anchored on `anchorText` (the line's text there). */
function finding(path: string, line: number, anchorText: string, patch: Partial<PlacedAiFinding> = {}): PlacedAiFinding {
  return {
    path,
    side: "RIGHT",
    startLine: null,
    line,
    severity: "warning",
    category: "bug",
    title: `t${line}`,
    body: "b",
    suggestion: null,
    anchor: anchorHash(anchorText),
    ...patch,
  };
}

const F10 = finding("src/a.ts", 10, "fix10");
const F20 = finding("src/a.ts", 20, "fix20");
const C5 = finding("src/c.ts", 5, "fix5");

/** Pushes head2 on head1 and carries `previous` to it, as the worker does. */
async function carry(edits: FileEdits, previous: readonly PlacedAiFinding[]): Promise<PlacedAiFinding[]> {
  const head2 = repo.commit(head1, edits);
  const pr = await computePullDiff(repo.context, repo.gitDir, base, head2);
  const source = repo.source(pr.fromSha, head2);
  const interdiff = await computePullDiff(repo.context, repo.gitDir, head1, head2);
  return carryFindings(previous, { since: head1, interdiff }, pr, source, blobLines(source, pr));
}

const where = (findings: readonly PlacedAiFinding[]) => findings.map(({ path, side, startLine, line, title }) => ({ path, side, startLine, line, title }));

describe("carryFindings", () => {
  it("moves findings on unchanged lines down by the lines inserted above them, keeping what they say", async () => {
    const carried = await carry({ "src/a.ts": text(["new1", "new2", ...HEAD1_A]) }, [F10, F20]);
    expect(carried).toEqual([
      { ...F10, line: 12 },
      { ...F20, line: 22 },
    ]);
  });

  it("drops a finding whose line was edited, and moves the one beside it", async () => {
    const edited = ["new1", ...HEAD1_A.map((line) => (line === "fix20" ? "fix20 again" : line))];
    expect(where(await carry({ "src/a.ts": text(edited) }, [F10, F20]))).toEqual([
      { path: "src/a.ts", side: "RIGHT", startLine: null, line: 11, title: "t10" },
    ]);
  });

  it("drops a finding whose line was deleted, and moves the one below it up", async () => {
    const deleted = HEAD1_A.filter((line) => line !== "fix10");
    expect(where(await carry({ "src/a.ts": text(deleted) }, [F10, F20]))).toEqual([
      { path: "src/a.ts", side: "RIGHT", startLine: null, line: 19, title: "t20" },
    ]);
  });

  it("drops a finding whose anchor does not read as its line, even on a line nobody touched", async () => {
    // Both lines are unchanged since head1; only the anchors differ.
    const forged = finding("src/a.ts", 10, "something else");
    expect(where(await carry({ "src/a.ts": text(["new1", ...HEAD1_A]) }, [forged, F20]))).toEqual([
      { path: "src/a.ts", side: "RIGHT", startLine: null, line: 21, title: "t20" },
    ]);
  });

  it("drops a finding on a line the PR no longer changes, though its text is the same", async () => {
    // Line 12 is a context line of the hunk around line 10 at head1; head2 reverts line 10, so
    // the PR has no hunk there any more and GitHub would refuse a comment on line 12.
    const context12 = finding("src/a.ts", 12, "a12");
    const reverted = HEAD1_A.map((line) => (line === "fix10" ? "a10" : line));
    const contextNear20 = finding("src/a.ts", 22, "a22");
    expect(where(await carry({ "src/a.ts": text(reverted) }, [context12, contextNear20]))).toEqual([
      { path: "src/a.ts", side: "RIGHT", startLine: null, line: 22, title: "t22" },
    ]);
  });

  it("follows a file renamed since the last review to its new path", async () => {
    const carried = await carry({ "src/a.ts": null, "src/renamed.ts": text(["new1", ...HEAD1_A]) }, [F10, F20, C5]);
    expect(where(carried)).toEqual([
      { path: "src/renamed.ts", side: "RIGHT", startLine: null, line: 11, title: "t10" },
      { path: "src/renamed.ts", side: "RIGHT", startLine: null, line: 21, title: "t20" },
      { path: "src/c.ts", side: "RIGHT", startLine: null, line: 5, title: "t5" },
    ]);
  });

  it("drops the findings of a file deleted since the last review, and keeps those of a file left alone where they were", async () => {
    expect(where(await carry({ "src/a.ts": null }, [F10, F20, C5]))).toEqual([{ path: "src/c.ts", side: "RIGHT", startLine: null, line: 5, title: "t5" }]);
  });

  it("keeps a LEFT finding while its base line is still in a hunk, and drops it once the PR stops changing that line", async () => {
    // Base line 30, deleted by the PR: in the base's hunk 27-34, in no head hunk (1-13, 37-42).
    const left = finding("src/left.ts", 30, "l30", { side: "LEFT", title: "left" });
    const pr = await computePullDiff(repo.context, repo.gitDir, base, head1);
    expect(pr.files.find((file) => file.path === "src/left.ts")).toMatchObject({
      baseHunks: [
        { start: 1, end: 3 },
        { start: 27, end: 34 },
      ],
      hunks: [
        { start: 1, end: 13 },
        { start: 37, end: 42 },
      ],
    });
    // Lines inserted above on the head side move nothing of the base's.
    expect(await carry({ "src/left.ts": text(["again", ...HEAD1_L]) }, [left])).toEqual([left]);
    const restored = [...numberedLines(10, "top"), ...L];
    expect(await carry({ "src/left.ts": text(restored) }, [left])).toEqual([]);
  });

  it("moves a range as one while both ends are unchanged, and drops it once its first line changed", async () => {
    const range = finding("src/a.ts", 10, "fix10", { startLine: 9 });
    expect(where(await carry({ "src/a.ts": text(["new1", ...HEAD1_A]) }, [range]))).toEqual([
      { path: "src/a.ts", side: "RIGHT", startLine: 10, line: 11, title: "t10" },
    ]);
    const firstChanged = HEAD1_A.map((line) => (line === "a9" ? "a9 edited" : line));
    expect(where(await carry({ "src/a.ts": text(firstChanged) }, [range]))).toEqual([]);
  });

  it("carries nothing of a file whose diff since the last review is past the cap, and does not fail", async () => {
    // Every line rewritten: git's diff of the two versions is well over lineMoves' 8 MiB.
    const huge = Array.from({ length: 200_000 }, (_, index) => `line ${String(index)} ${"x".repeat(40)}`);
    const before = repo.commit(head1, { "src/big.ts": text(huge) });
    const after = repo.commit(before, { "src/big.ts": text(huge.map((line) => `${line} changed`)), "src/c.ts": text(HEAD1_C) });
    const pr = await computePullDiff(repo.context, repo.gitDir, base, after);
    const source = repo.source(pr.fromSha, after);
    const interdiff = await computePullDiff(repo.context, repo.gitDir, before, after);
    const big = finding("src/big.ts", 5, huge[4] ?? "");
    expect(where(await carryFindings([big, C5], { since: before, interdiff }, pr, source, blobLines(source, pr)))).toEqual(where([C5]));
  }, 120_000);
});
