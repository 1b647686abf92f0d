import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyRepo, numberedLines, text, type HistoryRepo } from "../fixtures/history-repo.js";
import { lineMoves, type MoveLine } from "./line-moves.js";

const BASE = numberedLines(10);

let repo: HistoryRepo;
let base: string;

beforeAll(() => {
  repo = historyRepo("line-moves");
  base = repo.commit(null, { "a.txt": text(BASE) });
});
afterAll(() => {
  repo.remove();
});

/** Where each line of the base's a.txt is in `head`'s `path` (null: changed or removed). */
async function movesTo(head: string, path = "a.txt", basePath = "a.txt", lines = BASE.length): Promise<(number | null)[]> {
  const move = await lineMoves(repo.source(base, head), base, basePath, head, path);
  return Array.from({ length: lines }, (_, index) => move(index + 1));
}

/** Every line that moved reads the same at its new number: the expectation agrees with the file. */
function expectSameText(baseLines: readonly string[], headLines: readonly string[], moved: readonly (number | null)[]): void {
  for (const [index, line] of moved.entries()) {
    if (line !== null) expect(headLines[line - 1]).toBe(baseLines[index]);
  }
}

describe("lineMoves", () => {
  const [l1, l2, l3, l4, l5, l6, l7, l8, l9, l10] = BASE as [string, string, string, string, string, string, string, string, string, string];
  it.each([
    ["an unchanged file keeps every line", BASE, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    [
      "two lines inserted above line 5 move it and those below down by two",
      [l1, l2, l3, l4, "a", "b", l5, l6, l7, l8, l9, l10],
      [1, 2, 3, 4, 7, 8, 9, 10, 11, 12],
    ],
    ["two lines appended below the last move nothing", [...BASE, "a", "b"], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    ["two lines inserted at line 0 (above the first) move every line", ["a", "b", ...BASE], [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
    ["line 5 replaced by two lines is gone; those below move by one", [l1, l2, l3, l4, "x", "y", l6, l7, l8, l9, l10], [1, 2, 3, 4, null, 7, 8, 9, 10, 11]],
    ["lines 5-6 deleted are gone; those below move up by two", [l1, l2, l3, l4, l7, l8, l9, l10], [1, 2, 3, 4, null, null, 5, 6, 7, 8]],
    ["the first line deleted", BASE.slice(1), [null, 1, 2, 3, 4, 5, 6, 7, 8, 9]],
    ["the last line deleted", BASE.slice(0, -1), [1, 2, 3, 4, 5, 6, 7, 8, 9, null]],
    [
      "several changes add up: one on top, line 3 replaced, line 7 deleted, one appended",
      ["t", l1, l2, "x", l4, l5, l6, l8, l9, l10, "z"],
      [2, 3, null, 5, 6, 7, null, 8, 9, 10],
    ],
    ["the whole file replaced", ["x", "y"], [null, null, null, null, null, null, null, null, null, null]],
  ] as const)("%s", async (_name, head, expected) => {
    const moved = await movesTo(repo.commit(base, { "a.txt": text(head) }));
    expect(moved).toEqual(expected);
    expectSameText(BASE, head, moved);
  });

  it("follows a renamed file (oldPath at `from`, newPath at `to`)", async () => {
    const head = ["top", ...BASE.slice(0, 5), ...BASE.slice(6)];
    const commit = repo.commit(base, { "a.txt": null, "src/renamed.txt": text(head) });
    const moved = await movesTo(commit, "src/renamed.txt");
    expect(moved).toEqual([2, 3, 4, 5, 6, null, 7, 8, 9, 10]);
    expectSameText(BASE, head, moved);
    // The path at `to` is the new one: the old one is not there any more.
    await expect(lineMoves(repo.source(base, commit), base, "a.txt", commit, "a.txt")).rejects.toThrow(/GIT_FAILED|exit 128/);
  });

  it("a line of the file that reads as a hunk header cannot forge one", async () => {
    // Line 2 of the base reads as a header and is deleted; three header-like lines are inserted
    // after line 4. With them taken for headers every later line would move elsewhere.
    const forgedBase = [l1, "@@ -5,0 +6,40 @@", l3, l4, l5, l6, l7, l8, l9, l10];
    const from = repo.commit(null, { "h.txt": text(forgedBase) });
    const forgedHead = [l1, l3, l4, "@@ -1 +1 @@", "@@ -1,1000 +1 @@", "@@ -0,0 +1,50 @@ x", l5, l6, l7, l8, l9, l10];
    const to = repo.commit(from, { "h.txt": text(forgedHead) });
    // The attack is real: git prints those lines at the start of content lines.
    const patch = repo.git(["diff", "--unified=0", `${from}:h.txt`, `${to}:h.txt`]).split("\n");
    expect(patch).toEqual(expect.arrayContaining(["-@@ -5,0 +6,40 @@", "+@@ -1 +1 @@", "+@@ -1,1000 +1 @@", "+@@ -0,0 +1,50 @@ x"]));
    const move = await lineMoves(repo.source(from, to), from, "h.txt", to, "h.txt");
    const moved = forgedBase.map((_, index) => move(index + 1));
    expect(moved).toEqual([1, null, 2, 3, 7, 8, 9, 10, 11, 12]);
    expectSameText(forgedBase, forgedHead, moved);
  });

  it("a last line that gains a newline counts as changed; the rest stay", async () => {
    const from = repo.commit(null, { "n.txt": BASE.join("\n") });
    const to = repo.commit(from, { "n.txt": `${BASE.join("\n")}\nl11` });
    const move = await lineMoves(repo.source(from, to), from, "n.txt", to, "n.txt");
    expect(BASE.map((_, index) => move(index + 1))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, null]);
  });

  it("moves lines through n changes in time linear in n (4× the changes, at most 6× the time)", async () => {
    // A file of 2n lines with a line inserted after every second one: n hunks, every line moved.
    // lineMoves itself awaits git, so the measure is of moving lines through the parsed changes;
    // the largest diff is read whole and checked below.
    const moves = new Map<number, MoveLine>();
    const SIZE = 1000;
    for (let n = SIZE; n <= 64 * SIZE; n *= 2) {
      const old = numberedLines(2 * n);
      const grown = old.flatMap((line, index) => (index % 2 === 1 ? [line, `added${index}`] : [line]));
      const from = repo.commit(null, { "big.txt": text(old) });
      const to = repo.commit(from, { "big.txt": text(grown) });
      const move = await lineMoves(repo.source(from, to), from, "big.txt", to, "big.txt");
      // Line L has floor((L - 1) / 2) insertions above it.
      for (const line of [1, 2, 3, 2 * n - 1, 2 * n]) expect(move(line)).toBe(line + Math.floor((line - 1) / 2));
      moves.set(n, move);
    }
    // The same number of findings at every size, spread over the file: the work is the changes'.
    const PROBES = 4000;
    const job = (n: number) => {
      const move = moves.get(n);
      if (move === undefined) throw new Error(`no diff of ${n} changes prepared`);
      return () => {
        for (let probe = 1; probe <= PROBES; probe += 1) move(Math.ceil((probe * 2 * n) / PROBES));
      };
    };
    expect(
      growthRatio(
        (run: () => void) => {
          run();
        },
        job,
        SIZE,
        { maxGrowth: 16 },
      ),
    ).toBeLessThanOrEqual(6);
  }, 120_000);
});
