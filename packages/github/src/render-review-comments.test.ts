import { AI_REVIEW_OFF, type PublishedFinding, type PublishedReport } from "@reviewbot/queue/published-report";
import { describe, expect, it } from "vitest";
import { renderReviewComments, reviewMarker } from "./render-review-comments.js";

const SHA = "c".repeat(40);
const finding = (line: number | null, endLine: number | null = null, extra: Partial<PublishedFinding> = {}): PublishedFinding => ({
  path: "src/a.ts",
  line,
  endLine,
  column: null,
  severity: "error",
  message: "bad",
  rule: "r",
  helper: "h",
  anchor: line === null ? null : String(line).padStart(16, "0"),
  ...extra,
});
const report = (findings: PublishedFinding[]): PublishedReport => ({
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [],
  findings,
  filtered: { mode: "nofilter", dropped: 0 },
  errors: [],
  hunks: { "src/a.ts": [{ start: 10, end: 20 }, { start: 40, end: 45 }] },
  durationMs: 1,
  ai: AI_REVIEW_OFF,
});

describe("renderReviewComments", () => {
  it.each([
    ["single line inside a hunk", finding(12), { line: 12 }],
    ["hunk boundaries are inside", finding(20), { line: 20 }],
    ["range within one hunk", finding(11, 19), { start_line: 11, line: 19 }],
    ["range crossing hunks falls back to the start line", finding(18, 42), { line: 18 }],
    ["equal ends are one line", finding(41, 41), { line: 41 }],
    ["outside every hunk", finding(30), null],
    ["before the first hunk", finding(9), null],
    ["file-level finding", finding(null), null],
    ["file without hunks", finding(12, null, { path: "src/other.ts" }), null],
  ] as const)("%s", (_name, input, expected) => {
    const rendered = renderReviewComments(report([input]), { headSha: SHA });
    if (expected === null) {
      expect(rendered).toBeNull();
      return;
    }
    const comment = rendered?.comments[0];
    expect({ start_line: comment?.start_line, line: comment?.line }).toEqual({ start_line: undefined, ...expected });
    expect(comment?.side).toBe("RIGHT");
    expect(comment?.start_side).toBe("start_line" in expected ? "RIGHT" : undefined);
  });

  it("marks the review with the head SHA and caps the number of comments", () => {
    const rendered = renderReviewComments(report(Array.from({ length: 12 }, (_, i) => finding(10 + i % 10))), { headSha: SHA, maxComments: 5 });
    expect(rendered?.body.startsWith(reviewMarker(SHA))).toBe(true);
    expect(rendered?.comments).toHaveLength(5);
    expect(rendered?.body).toContain("7 more not shown");
  });

  it("sanitises the comment body", () => {
    const rendered = renderReviewComments(report([finding(12, null, { message: "@team ![x](https://e/p) <img src=y>" })]), { headSha: SHA });
    const body = rendered?.comments[0]?.body ?? "";
    expect(body).not.toMatch(/@team|!\[|<img/);
  });
});
