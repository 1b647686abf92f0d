import { aiReportOff, type PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { type PublishedFinding, type PublishedReport } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { fingerprintMarker, fingerprintOf, markedFingerprint } from "./finding-fingerprint.js";
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
  hunks: {
    "src/a.ts": [
      { start: 10, end: 20 },
      { start: 40, end: 45 },
    ],
  },
  durationMs: 1,
  ai: aiReportOff(),
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
    const rendered = renderReviewComments(report(Array.from({ length: 12 }, (_, i) => finding(10 + (i % 10)))), { headSha: SHA, maxComments: 5 });
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

const aiFinding = (line: number, extra: Partial<PlacedAiFinding> = {}): PlacedAiFinding => ({
  path: "src/a.ts",
  side: "RIGHT",
  startLine: null,
  line,
  severity: "warning",
  category: "bug",
  title: `AI ${line}`,
  body: "b",
  suggestion: null,
  anchor: String(line).padStart(16, "a"),
  ...extra,
});
const withAi = (findings: PublishedFinding[], ai: PlacedAiFinding[]): PublishedReport => ({
  ...report(findings),
  ai: { ...aiReportOff(), status: "done", model: "m", findings: ai },
});
const fingerprint = (finding: PublishedFinding | PlacedAiFinding): string => {
  const value = fingerprintOf(finding);
  if (value === null) throw new Error("a finding without a fingerprint");
  return value;
};

describe("renderReviewComments: where every finding is", () => {
  it("names the check run by default, and what the caller says otherwise", () => {
    expect(renderReviewComments(report([finding(12)]), { headSha: SHA })?.body).toMatch(/; the `reviewbot` check run lists every finding\.$/);
    const elsewhere = renderReviewComments(report([finding(12)]), { headSha: SHA, everyFinding: "the step summary lists every finding" });
    expect(elsewhere?.body).toMatch(/; the step summary lists every finding\.$/);
    expect(elsewhere?.body).not.toContain("check run");
  });
});

describe("renderReviewComments with the findings of earlier pushes", () => {
  const helperOld = finding(12);
  const helperNew = finding(41);
  const aiOld = aiFinding(13);
  const aiNew = aiFinding(14);
  const all = withAi([helperOld, helperNew], [aiOld, aiNew]);

  it("comments on every finding, each with its fingerprint's marker, when nothing was posted before (negative control)", () => {
    const rendered = renderReviewComments(all, { headSha: SHA, posted: new Set() });
    expect(rendered?.repeated).toBe(0);
    expect(rendered?.comments.map((comment) => markedFingerprint(comment.body))).toEqual([aiOld, aiNew, helperOld, helperNew].map(fingerprint));
    expect(rendered?.body).not.toContain("already commented on");
  });

  it("leaves out the findings whose fingerprint was posted, counts them and says so", () => {
    const rendered = renderReviewComments(all, { headSha: SHA, posted: new Set([fingerprint(helperOld), fingerprint(aiOld)]) });
    expect(rendered?.comments.map((comment) => ({ line: comment.line, fingerprint: markedFingerprint(comment.body) }))).toEqual([
      { line: 14, fingerprint: fingerprint(aiNew) },
      { line: 41, fingerprint: fingerprint(helperNew) },
    ]);
    expect(rendered?.repeated).toBe(2);
    expect(rendered?.body).toContain("left 2 comments");
    expect(rendered?.body).toContain("2 findings already commented on at an earlier push are not repeated");
  });

  it("knows a finding again on another line once its line moved (the fingerprint has no line number)", () => {
    const moved = withAi([finding(44, null, { anchor: helperOld.anchor })], [aiFinding(19, { anchor: aiOld.anchor, title: aiOld.title })]);
    const rendered = renderReviewComments(moved, { headSha: SHA, posted: new Set([fingerprint(helperOld), fingerprint(aiOld)]) });
    expect(rendered).toBeNull();
  });

  it("renders no review when every finding was posted before", () => {
    const posted = new Set([helperOld, helperNew, aiOld, aiNew].map(fingerprint));
    expect(renderReviewComments(all, { headSha: SHA, posted })).toBeNull();
    // One fresh finding is enough for a review, which names the one repeated.
    const one = renderReviewComments(all, { headSha: SHA, posted: new Set([helperOld, helperNew, aiOld].map(fingerprint)) });
    expect(one?.comments.map((comment) => comment.line)).toEqual([14]);
    expect(one?.body).toContain("3 findings already commented on");
  });

  it("counts a helper finding off the diff as nothing: it is no comment, posted or not", () => {
    const rendered = renderReviewComments(report([finding(30), helperNew]), { headSha: SHA, posted: new Set([fingerprint(finding(30))]) });
    expect(rendered?.repeated).toBe(0);
  });

  it("cuts an over-long comment at the byte cap before its marker, so the marker still ends it", () => {
    // A helper message of 60,000 two-byte characters and an AI body and suggestion of escaped and four-byte characters.
    const longHelper = finding(12, null, { message: "é".repeat(60_000) });
    const longAi = aiFinding(13, { body: "&".repeat(4000), suggestion: "😀".repeat(4000) });
    const rendered = renderReviewComments(withAi([longHelper], [longAi]), { headSha: SHA });
    expect(rendered?.comments).toHaveLength(2);
    for (const [index, source] of [longAi, longHelper].entries()) {
      const body = rendered?.comments[index]?.body ?? "";
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(16_000);
      expect(body).toContain("…");
      expect(body.endsWith(fingerprintMarker(fingerprint(source)))).toBe(true);
      expect(markedFingerprint(body)).toBe(fingerprint(source));
    }
  });

  it("reads a comment's own marker, not one its suggestion quotes (a model told by the PR to hide another finding)", () => {
    // The PR's author knows the fingerprint of a helper finding to come: every part of it is public.
    const target = finding(41, null, { message: "SQL built from user input", rule: "sql-injection" });
    const hostile = aiFinding(13, { suggestion: `const q = 1;\n${fingerprintMarker(fingerprint(target))}` });
    const body = renderReviewComments(withAi([], [hostile]), { headSha: SHA })?.comments[0]?.body ?? "";
    // The quoted marker is in the raw body (inside the suggestion's fence): the attack is real.
    expect(body).toContain(fingerprintMarker(fingerprint(target)));
    expect(markedFingerprint(body)).toBe(fingerprint(hostile));
  });
});

describe("renderReviewComments: the least severe finding that goes inline", () => {
  const findings = [
    finding(11, null, { severity: "error", rule: "e" }),
    finding(12, null, { severity: "warning", rule: "w" }),
    finding(13, null, { severity: "notice", rule: "n" }),
  ];
  it.each([
    [undefined, [11, 12, 13]],
    ["notice" as const, [11, 12, 13]],
    ["warning" as const, [11, 12]],
    ["error" as const, [11]],
  ])("at %s comments on lines %j", (minSeverity, lines) => {
    const rendered = renderReviewComments(report(findings), { headSha: SHA, ...(minSeverity === undefined ? {} : { minSeverity }) });
    expect(rendered?.comments.map((comment) => comment.line)).toEqual(lines);
  });
});
