import { aiReportOff, type AiReport, type PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { type PublishedReport } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { decideConclusion, renderCheckRun } from "./render-check-run.js";
import { renderReviewComments } from "./render-review-comments.js";

const SHA = "d".repeat(40);
const aiFinding = (patch: Partial<PlacedAiFinding> = {}): PlacedAiFinding => ({
  path: "src/a.ts",
  side: "RIGHT",
  startLine: null,
  line: 12,
  severity: "warning",
  category: "bug",
  title: "Off by one",
  body: "The loop stops one short.",
  suggestion: null,
  anchor: "0123456789abcdef",
  ...patch,
});
const ai = (patch: Partial<AiReport> = {}): AiReport => ({
  ...aiReportOff(),
  status: "done",
  model: "m",
  summary: "Looks mostly fine.",
  coverage: { files: 2, reviewedFiles: 2, skipped: [] },
  ...patch,
});
const report = (aiReview: AiReport): PublishedReport => ({
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: SHA }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [],
  findings: [],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 1,
  ai: aiReview,
});

describe("the AI review in the check run", () => {
  it.each([
    ["off: as today", aiReportOff(), "success", false],
    ["done without findings", ai(), "success", false],
    ["an error finding fails the check", ai({ findings: [aiFinding({ severity: "error" })] }), "failure", false],
    ["a warning is neutral", ai({ findings: [aiFinding()] }), "neutral", false],
    ["partial coverage is at most neutral", ai({ status: "partial" }), "neutral", false],
    ["a failed AI review makes the review incomplete", ai({ status: "failed", note: "LLM_UNAVAILABLE" }), "failure", true],
  ] as const)("%s", (_name, review, conclusion, incomplete) => {
    expect(decideConclusion(report(review))).toEqual({ conclusion, incomplete });
  });

  it("says how to turn the AI review on when it is off, and shows the model's summary sanitised when it ran", () => {
    expect(renderCheckRun({ kind: "completed", report: report(aiReportOff()) }, { headSha: SHA }).summary).toContain(
      "REVIEWBOT_LLM_BASE_URL=http://127.0.0.1:11434/v1",
    );
    const hostile = ai({
      summary: "Approved! ![x](https://evil.example/p.png) cc @org/everyone <img src=x>",
      unplaced: [{ path: "a.ts", line: 3, title: "t", reason: "anchorText does not match line 3" }],
    });
    const { summary } = renderCheckRun({ kind: "completed", report: report(hostile) }, { headSha: SHA });
    expect(summary).toContain("reviewed 2 of 2 changed files");
    expect(summary).toContain("anchorText does not match line 3");
    expect(summary).not.toMatch(/!\[x\]\(|<img|@org\/everyone/);
  });

  it("annotates RIGHT-side AI findings; a LEFT-side one has no line in the head's file", () => {
    const rendered = renderCheckRun(
      { kind: "completed", report: report(ai({ findings: [aiFinding(), aiFinding({ side: "LEFT", line: 3 })] })) },
      { headSha: SHA },
    );
    expect(rendered.annotations).toMatchObject([{ path: "src/a.ts", start_line: 12, end_line: 12, title: "ai: bug" }]);
  });
});

describe("AI review comments", () => {
  it("posts AI findings on their side, ranges and suggestions included, even without helper comments", () => {
    const findings = [aiFinding({ startLine: 10, line: 12, suggestion: "let i = 0;" }), aiFinding({ side: "LEFT", line: 4 })];
    const review = renderReviewComments(report(ai({ findings })), { headSha: SHA, helperComments: false });
    expect(review?.comments).toMatchObject([
      { path: "src/a.ts", start_line: 10, start_side: "RIGHT", line: 12, side: "RIGHT" },
      { path: "src/a.ts", line: 4, side: "LEFT" },
    ]);
    expect(review?.comments[0]?.body).toContain("```suggestion\nlet i = 0;\n```");
  });

  it("a suggestion cannot close its fence early, and title and body cannot form images, links or mentions", () => {
    const hostile = aiFinding({
      title: "@octocat look ![](https://evil/x.png)",
      body: "[click](https://evil) <b>x</b>",
      suggestion: "a\n```\n![beacon](https://evil/y.png) @everyone\n````",
    });
    const body = renderReviewComments(report(ai({ findings: [hostile] })), { headSha: SHA })?.comments[0]?.body ?? "";
    expect(body).toContain("`````suggestion\n");
    // The fence closes the text; only the fingerprint's hidden marker follows it.
    expect(body).toMatch(/\n`````\n\n<!-- reviewbot:finding:[0-9a-f]{32} -->$/);
    const outside = body.slice(0, body.indexOf("`````suggestion"));
    expect(outside).not.toMatch(/!\[|\]\(|<b>|@octocat/);
  });

  it("a suggestion on the LEFT side is not offered (it could not be applied)", () => {
    const review = renderReviewComments(report(ai({ findings: [aiFinding({ side: "LEFT", suggestion: "x" })] })), { headSha: SHA });
    expect(review?.comments[0]?.body).not.toContain("suggestion");
  });
});
