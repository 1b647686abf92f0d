import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { type PublishedFinding, type PublishedHelper, type PublishedReport } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { decideConclusion, renderCheckRun } from "./render-check-run.js";

const SHA = "a".repeat(40);
const finding = (severity: PublishedFinding["severity"], extra: Partial<PublishedFinding> = {}): PublishedFinding => ({
  path: "src/a.ts",
  line: 1,
  endLine: null,
  column: null,
  severity,
  message: "m",
  rule: null,
  helper: "eslint",
  anchor: null,
  ...extra,
});
const helper = (outcome: PublishedHelper["outcome"]): PublishedHelper => ({
  name: "eslint",
  image: "reviewbot/eslint",
  outcome,
  durationMs: 1200,
  findings: 0,
  problems: [],
});
const report = (patch: Partial<PublishedReport> = {}): PublishedReport => ({
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [helper("passed")],
  findings: [],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 10,
  ai: aiReportOff(),
  ...patch,
});

describe("decideConclusion", () => {
  it.each([
    ["clean", report(), "success"],
    ["notices only", report({ findings: [finding("notice")] }), "success"],
    ["warnings", report({ findings: [finding("warning"), finding("notice")] }), "neutral"],
    ["an error finding", report({ findings: [finding("warning"), finding("error")] }), "failure"],
    ["config error", report({ configErrors: ["bad key"] }), "failure"],
    ["overlay failed closed", report({ overlay: { source: "failed-closed", failedClosed: true, commit: null, ignoredPrChanges: [] } }), "failure"],
    ["helper timed out", report({ helpers: [helper("timeout")] }), "failure"],
    ["helper OOM", report({ helpers: [helper("oom")] }), "failure"],
    ["helper output cut", report({ helpers: [helper("truncated")] }), "failure"],
    ["pipeline error", report({ errors: ["engine down"] }), "failure"],
    [
      "no helpers configured",
      report({
        helpers: [],
        overlay: { source: "absent", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
      }),
      "success",
    ],
  ])("%s → %s", (_name, input, conclusion) => {
    expect(decideConclusion(input).conclusion).toBe(conclusion);
  });
});

describe("renderCheckRun", () => {
  it.each([
    ["clean", report(), "No problems found"],
    ["counts", report({ findings: [finding("error"), finding("error"), finding("warning")] }), "2 errors, 1 warning"],
    ["config error", report({ configErrors: ["x"] }), "Configuration error; no problems found"],
    ["incomplete", report({ helpers: [helper("timeout")], findings: [finding("notice")] }), "Review incomplete; 1 notice"],
  ])("title for %s", (_name, input, title) => {
    expect(renderCheckRun({ kind: "completed", report: input }, { headSha: SHA }).title).toBe(title);
  });

  it("states totals, engine, overlay and what did not fit", () => {
    const findings = Array.from({ length: 30 }, (_, i) => finding(i < 10 ? "error" : "warning", { line: i + 1 }));
    const rendered = renderCheckRun(
      {
        kind: "completed",
        report: report({
          findings,
          filtered: { mode: "added", dropped: 7 },
          sandboxed: false,
          engine: "none",
          overlay: {
            source: "ref",
            failedClosed: false,
            commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) },
            ignoredPrChanges: [".ai/review-tools.json"],
          },
        }),
      },
      { headSha: SHA, maxAnnotations: 25 },
    );
    expect(rendered.annotations).toHaveLength(25);
    expect(rendered.annotations.slice(0, 10).every((a) => a.annotation_level === "failure")).toBe(true);
    expect(rendered.summary).toContain("10 errors, 20 warnings, 0 notices");
    expect(rendered.summary).toContain("7 outside the diff filtered out");
    expect(rendered.summary).toContain("engine `none`, **not sandboxed**");
    expect(rendered.summary).toContain("1 change(s) this PR made under `.ai/` were ignored");
    expect(rendered.summary).toContain("5 findings did not fit");
    expect(rendered.text).toContain("\\.ai/review\\-tools\\.json");
  });

  it("keeps summary and text within 65,535 bytes and says what did not fit", () => {
    const problems = Array.from({ length: 100 }, () => "é".repeat(1900));
    const helpers = Array.from({ length: 100 }, (_, i) => ({ ...helper("failed"), name: `h${i}`, problems }));
    const rendered = renderCheckRun(
      { kind: "completed", report: report({ helpers, errors: Array.from({ length: 200 }, () => "x".repeat(2000)) }) },
      { headSha: SHA },
    );
    expect(Buffer.byteLength(rendered.summary)).toBeLessThanOrEqual(65_535);
    expect(Buffer.byteLength(rendered.text ?? "")).toBeLessThanOrEqual(65_535);
    expect(rendered.summary).toMatch(/\d+ more lines did not fit/);
    expect(rendered.text).toMatch(/\d+ more lines did not fit/);
  });

  it("sanitises hostile helper names and errors in the summary", () => {
    const rendered = renderCheckRun(
      {
        kind: "completed",
        report: report({ helpers: [{ ...helper("passed"), name: "x | ![p](https://e/p.png) @admin" }], errors: ["<img src=https://e/x>"] }),
      },
      { headSha: SHA },
    );
    expect(rendered.summary).not.toContain("![p]");
    expect(rendered.summary).not.toContain("<img");
    expect(rendered.summary).not.toContain("@admin");
    expect(rendered.summary).toContain("x \\| \\!\\[p\\]");
  });

  it.each([
    ["superseded", { kind: "superseded", supersededBy: "b".repeat(40) }, "cancelled", "superseded by `bbbb"],
    ["failed", { kind: "failed", code: "REPO_CONFIG_INVALID", reason: "helpers[0].image @bob not allowed" }, "failure", "not allowed"],
    ["failed by cancellation", { kind: "failed", code: "REVIEW_CANCELLED", reason: "newer head" }, "cancelled", "(`REVIEW_CANCELLED`)"],
  ] as const)("%s", (_name, outcome, conclusion, fragment) => {
    const rendered = renderCheckRun(outcome, { headSha: SHA });
    expect(rendered.conclusion).toBe(conclusion);
    expect(rendered.summary).toContain(fragment);
    expect(rendered.summary).not.toContain("@bob");
    expect(rendered.annotations).toEqual([]);
  });
});

describe("renderCheckRun: a review the repository's settings skipped", () => {
  it("is `skipped`, names the reason and the setting, escapes the label, and still shows configuration errors", () => {
    const rendered = renderCheckRun(
      { kind: "completed", report: report({ skipped: { reason: "label", label: "no `review` @team" }, configErrors: ["reviewDraft: unknown key"] }) },
      { headSha: "f".repeat(40) },
    );
    expect(rendered.conclusion).toBe("skipped");
    expect(rendered.title).toBe("Review skipped: skip label");
    expect(rendered.summary).toContain("(`skipLabels` in the default branch's `.ai/review-config.json`)");
    // In a code span nobody is mentioned and nothing renders; the fence outlasts the label's backticks.
    expect(rendered.summary).toContain("skip label ``no `review` @team``");
    expect(rendered.summary).toMatch(/### Configuration errors\n- reviewDraft\\?: unknown key/);
    expect(rendered.annotations).toEqual([]);
  });

  it.each([
    [{ reason: "draft" as const }, "Review skipped: draft pull request"],
    [{ reason: "bot-author" as const }, "Review skipped: pull request opened by an app"],
    [{ reason: "automatic-review-off" as const }, "Review skipped: automatic reviews are off"],
  ])("%j: %s", (skipped, title) => {
    expect(renderCheckRun({ kind: "completed", report: report({ skipped }) }, { headSha: "f".repeat(40) }).title).toBe(title);
  });
});

describe("renderCheckRun: a push to a paused PR", () => {
  it("is `skipped`, titled paused, and names the commands that review it", () => {
    const rendered = renderCheckRun({ kind: "paused" }, { headSha: "a".repeat(40) });
    expect([rendered.conclusion, rendered.title, rendered.annotations]).toEqual(["skipped", "Review paused", []]);
    expect(rendered.summary).toContain(`\`${"a".repeat(40)}\` was not reviewed`);
    for (const command of ["`pause`", "`resume`", "`review`", "Re-run"]) expect(rendered.summary).toContain(command);
  });
});
