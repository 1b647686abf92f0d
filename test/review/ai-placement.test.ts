import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computePullDiff, type PullDiff } from "@reviewbot/overlay/pull-diff";
import { blobLines } from "@reviewbot/review/ai/placement/blob-lines";
import { placeFindings, type DiffSide } from "@reviewbot/review/ai/placement/place-findings";
import { planChunks } from "@reviewbot/review/ai/plan/plan-chunks";
import type { AiFinding } from "@reviewbot/review/ai/tools/submit-review";
import { gitContext } from "../support/clone-cache-harness.js";
import { createUpstream, type Upstream } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";
import { DEFAULT_AI_SKIP_RULES } from "@reviewbot/policy/ai-skip-rules";
import { skipReasonUnder } from "@reviewbot/review/ai/plan/skip-reason";

const tempDir = useTempDirs();

// Base lines 1-40; line 10 reads "-- a/evil", so git shows its removal as "--- a/evil".
const BASE = Array.from({ length: 40 }, (_, index) => (index === 9 ? "-- a/evil" : `const k${index + 1} = ${index + 1};`));
// The head inserts, after line 3, lines git shows as "++ foo", "+++ b/evil" and "+@@ -1 +1,99 @@"
// (serge took such lines for headers and put every later comment a line off), removes line 10 and
// changes line 35 (a second hunk).
const HEAD = [...BASE.slice(0, 3), "+ foo", "++ b/evil", "@@ -1 +1,99 @@", ...BASE.slice(3, 9), ...BASE.slice(10, 34), "const k35 = 3500;", ...BASE.slice(35)];

interface PullFixture {
  readonly upstream: Upstream;
  readonly diff: PullDiff;
  /** Reads a line the way the worker does: from git objects by SHA, never a work tree. */
  readonly lineText: (side: DiffSide, path: string, line: number) => Promise<string | null>;
}

async function pull(): Promise<PullFixture> {
  const upstream = createUpstream(await tempDir("ai-placement"));
  upstream.commitOn("main", (tree) => {
    tree.write("src/tricky.ts", `${BASE.join("\n")}\n`);
  });
  upstream.git(["branch", "--force", "fork", "main"]);
  upstream.commitOn("fork", (tree) => {
    tree.write("src/tricky.ts", `${HEAD.join("\n")}\n`);
  });
  const context = gitContext(upstream.home);
  const gitDir = join(upstream.dir, ".git");
  const diff = await computePullDiff(context, gitDir, upstream.rev("main"), upstream.rev("fork"));
  // The worker's own reader: head for RIGHT, the merge base for LEFT, by SHA.
  const lineText = blobLines({ context, gitDir, headSha: diff.headSha, baseSha: diff.baseSha, fromSha: diff.fromSha }, diff);
  return { upstream, diff, lineText };
}

const finding = (change: Partial<AiFinding>): AiFinding => ({
  path: "src/tricky.ts",
  side: "RIGHT",
  line: 1,
  severity: "warning",
  category: "bug",
  title: "t",
  body: "b",
  anchorText: "",
  ...change,
});

describe("AI finding placement on a real PR", () => {
  it("places findings after added lines that read like headers on the line the model meant", async () => {
    const { upstream, diff, lineText } = await pull();
    // The attack is real: git's patch holds the header-like content lines.
    const patch = upstream.git(["diff", diff.fromSha, diff.headSha]);
    expect(patch.split("\n")).toEqual(expect.arrayContaining(["++ foo", "+++ b/evil", "+@@ -1 +1,99 @@", "--- a/evil"]));
    expect(diff.files).toMatchObject([
      {
        path: "src/tricky.ts",
        hunks: [
          { start: 1, end: 15 },
          { start: 34, end: 40 },
        ],
        baseHunks: [
          { start: 1, end: 13 },
          { start: 32, end: 38 },
        ],
      },
    ]);

    const placeable = [
      finding({ line: 7, anchorText: "const k4 = 4;" }),
      finding({ line: 5, anchorText: "++ b/evil", title: "header-like line" }),
      finding({ startLine: 4, line: 6, anchorText: "@@ -1 +1,99 @@", suggestion: "// foo\n// evil\n// hunk", title: "suggested" }),
      finding({ line: 37, anchorText: "const k35 = 3500;" }),
      finding({ side: "LEFT", line: 10, anchorText: "-- a/evil", title: "removed line" }),
      finding({ side: "LEFT", line: 35, anchorText: "const k35 = 35;" }),
    ];
    const result = await placeFindings(placeable, diff, lineText);
    expect(result.unplaced).toEqual([]);
    expect(result.placed).toEqual(placeable);
  });

  it("refuses a finding a line off, across hunks, or outside the base side's hunks", async () => {
    const { diff, lineText } = await pull();
    const result = await placeFindings(
      [
        // What line 7 would hold had "+++ b/evil" been taken for a header: off by one.
        finding({ line: 7, anchorText: "const k5 = 5;" }),
        finding({ startLine: 10, line: 37, anchorText: "const k35 = 3500;" }),
        finding({ side: "LEFT", line: 20, anchorText: "const k20 = 20;" }),
        finding({ side: "LEFT", line: 10, anchorText: "-- a/evil", suggestion: "x", title: "left suggestion" }),
        finding({ line: 4, anchorText: "+ foo", suggestion: "+ foo\n" }),
      ],
      diff,
      lineText,
    );
    expect(result.placed).toEqual([]);
    expect(result.unplaced.map((entry) => entry.reason)).toEqual([
      "anchorText does not match line 7",
      "lines 10-37 are not all in one hunk of the RIGHT side",
      "line 20 is outside every hunk of the LEFT side",
      "suggestion on LEFT",
      "suggestion equals current text",
    ]);
  });

  it("splits the real patch only at its hunk headers", async () => {
    const { upstream, diff } = await pull();
    const patch = `${upstream.git(["diff", diff.fromSha, diff.headSha, "--", "src/tricky.ts"])}\n`;
    const plan = planChunks([{ path: "src/tricky.ts", binary: false, patch }], {
      maxTokens: Math.ceil(patch.length / 4) - 1,
      skip: skipReasonUnder(DEFAULT_AI_SKIP_RULES),
    });
    const parts = plan.chunks.flatMap((chunk) => chunk.files.map((part) => part.patch));
    expect(parts).toHaveLength(2);
    const header = patch.slice(0, patch.indexOf("\n@@ ") + 1);
    expect(parts.map((part) => part.slice(header.length)).join("")).toBe(patch.slice(header.length));
    expect(parts[0]).toContain("\n+++ b/evil\n");
    expect(parts[1]?.slice(header.length)).toMatch(/^@@ -32,7 \+34,7 @@/);
  });
});
