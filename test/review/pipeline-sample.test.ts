import { describe, expect, it } from "vitest";
import type { Finding } from "@reviewbot/review/findings/finding";
import { createSampleRepo, REVIEW_ENGINES, useReviewOf } from "../support/review-fixture.js";

const where = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.path}:${String(f.line)} ${f.rule ?? ""} ${f.severity}`).sort();

describe.each(REVIEW_ENGINES)("review pipeline on the bundled sample ($name)", (kind) => {
  const review = useReviewOf(kind, "review-sample", (root) => ({ dir: createSampleRepo(root) }));

  it("runs the base's two helpers sandboxed on this engine, and never the fork's", () => {
    const report = review();
    expect(report).toMatchObject({ engine: kind.name, sandboxed: true, errors: [], config: { errors: [] } });
    expect(report.helpers.map((h) => [h.name, h.engine, h.sandboxed, h.outcome])).toEqual([
      ["flake8", kind.name, true, "findings"],
      ["eslint", kind.name, true, "findings"],
    ]);
    expect(report.helpers.map((h) => h.name)).not.toContain("exfiltrate");
  });

  it("reports findings on the PR's added lines only", () => {
    const report = review();
    expect(where(report.findings)).toEqual([
      "app/calc.py:14 E711 warning",
      "app/calc.py:15 F821 error",
      "web/greet.ts:10 no-var error",
      "web/greet.ts:12 no-debugger error",
    ]);
    expect(report.filtered).toEqual({ mode: "added", dropped: 3, skippedByContext: 0 });
  });

  it("keeps pre-existing issues in the helpers' own findings, not in the review's", () => {
    const report = review();
    const helperFindings = report.helpers.flatMap((h) => h.findings);
    expect(where(helperFindings)).toEqual(expect.arrayContaining(["app/calc.py:1 F401 warning", "web/greet.ts:5 @typescript-eslint/no-explicit-any error"]));
    expect(report.findings.filter((f) => f.line === 1 || f.line === 5)).toEqual([]);
  });

  it("uses the base's .ai/ and lists the fork's .ai/ changes as ignored", () => {
    const report = review();
    expect(report.overlay).toEqual({
      source: "base",
      failedClosed: false,
      reason: null,
      commit: { from: "base", ref: "main", sha: report.base.sha },
      ignoredPrChanges: [".ai/review-tools.json", ".ai/steal.sh"],
    });
    expect(report.context).toMatchObject({ outcome: "passed", text: "This sample keeps Python in app/ and TypeScript in web/.\n" });
  });
});
