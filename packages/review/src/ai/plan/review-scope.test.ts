import { computePullDiff, type PullDiff } from "@reviewbot/overlay/pull-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyRepo, numberedLines, text, type HistoryRepo } from "../fixtures/history-repo.js";
import type { RepoSource } from "../repo/repo-source.js";
import { reviewScope } from "./review-scope.js";

// base → head1 (the last review's head) → head2 (this push). head1 changes a.ts and c.ts; head2
// changes a.ts again, puts c.ts back as it was at base (the PR no longer changes it) and adds d.ts.
// `sibling` is another commit on base: what a force-push leaves the last review's head as.
const A = numberedLines(20, "a");
const C = numberedLines(10, "c");

let repo: HistoryRepo;
let base: string;
let head1: string;
let head2: string;
let sibling: string;
let blob: string;
let source: RepoSource;
let diff: PullDiff;

beforeAll(async () => {
  repo = historyRepo("review-scope");
  base = repo.commit(null, { "a.ts": text(A), "c.ts": text(C) });
  head1 = repo.commit(base, { "a.ts": text(["first push", ...A]), "c.ts": text(["c change", ...C]) });
  head2 = repo.commit(head1, { "a.ts": text(["first push", ...A, "second push"]), "c.ts": text(C), "d.ts": text(["new file"]) });
  sibling = repo.commit(base, { "a.ts": text(["force-pushed", ...A]) });
  blob = repo.git(["rev-parse", `${head2}:d.ts`]);
  diff = await computePullDiff(repo.context, repo.gitDir, base, head2);
  source = repo.source(diff.fromSha, head2);
});
afterAll(() => {
  repo.remove();
});

/** Each patch's path, and whether it shows the first and the second push's lines. */
const shown = (patches: readonly { path: string; patch: string }[]) =>
  patches.map(({ path, patch }) => ({ path, first: patch.includes("\n+first push\n"), second: patch.includes("\n+second push\n") }));

const WHOLE = [
  { path: "a.ts", first: true, second: true },
  { path: "d.ts", first: false, second: false },
];

describe("reviewScope", () => {
  it("reviews only what changed since the last review when its head is an ancestor, in the files the PR still changes", async () => {
    const scope = await reviewScope(source, diff, head1);
    expect(scope.since).toBe(head1);
    // The interdiff is head1..head2 whole (c.ts included), for moving earlier findings.
    expect(scope.interdiff?.fromSha).toBe(head1);
    expect(scope.interdiff?.files.map((file) => file.path)).toEqual(["a.ts", "c.ts", "d.ts"]);
    // c.ts changed and was put back: nothing of the PR's to review there.
    expect(shown(scope.patches)).toEqual([
      { path: "a.ts", first: false, second: true },
      { path: "d.ts", first: false, second: false },
    ]);
    expect(scope.patches[1]?.patch).toContain("\n+new file\n");
  });

  it.each([
    ["no earlier review", () => null],
    ["the last review's head is this head (a review of the same commit again)", () => head2],
    ["the last review's head is not an ancestor (a force-push: a sibling commit)", () => sibling],
    ["the last review's head is not in the repository (git exits 128)", () => "0123456789abcdef0123456789abcdef01234567"],
    ["the last review's head names a blob, not a commit", () => blob],
    ["the last review's head reads as an option", () => "--all"],
  ])("reviews the whole PR when %s", async (_name, previous) => {
    const scope = await reviewScope(source, diff, previous());
    expect(scope).toMatchObject({ since: null, interdiff: null });
    expect(shown(scope.patches)).toEqual(WHOLE);
  });

  it("reviews the whole PR at head1 when the last review was at head2 (the branch was reset)", async () => {
    const atHead1 = await computePullDiff(repo.context, repo.gitDir, base, head1);
    const scope = await reviewScope(repo.source(atHead1.fromSha, head1), atHead1, head2);
    expect(scope).toMatchObject({ since: null, interdiff: null });
    expect(scope.patches.map(({ path }) => path)).toEqual(["a.ts", "c.ts"]);
  });
});
