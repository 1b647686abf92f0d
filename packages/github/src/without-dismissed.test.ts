import { aiReportOff, type PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { PublishedFinding, PublishedReport } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { aiFingerprint, fingerprintOf } from "./finding-fingerprint.js";
import { withoutDismissed } from "./without-dismissed.js";

const helper = (anchor: string | null, line: number): PublishedFinding => ({
  path: "src/a.ts",
  line,
  endLine: null,
  column: null,
  severity: "warning",
  message: "unused",
  rule: "no-unused",
  helper: "eslint",
  anchor,
});

const ai = (title: string, line: number): PlacedAiFinding => ({
  path: "src/a.ts",
  side: "RIGHT",
  startLine: null,
  line,
  severity: "error",
  category: "bug",
  title,
  body: "b",
  suggestion: null,
  anchor: "0123456789abcdef",
});

// Only the findings matter here; the rest of the report is never read.
const report = (findings: PublishedFinding[], aiFindings: PlacedAiFinding[]): PublishedReport =>
  ({ findings, ai: { ...aiReportOff(), status: "done", findings: aiFindings } }) as unknown as PublishedReport;

describe("withoutDismissed", () => {
  it("drops the helpers' and the AI review's dismissed findings, wherever their lines moved, and keeps the rest", () => {
    const dismissedHelper = helper("1111111111111111", 3);
    const keptHelper = helper("2222222222222222", 4);
    const offDiff = helper(null, 9);
    const dismissedAi = ai("Calls x twice", 10);
    const keptAi = ai("Another thing", 11);
    const dismissed = new Set([fingerprintOf(dismissedHelper) ?? "", aiFingerprint(dismissedAi)]);
    // The same findings after a force-push moved them: new line numbers, the same fingerprints.
    const moved = report([{ ...dismissedHelper, line: 30 }, keptHelper, offDiff], [{ ...dismissedAi, line: 40 }, keptAi]);
    const left = withoutDismissed(moved, dismissed);
    expect(left.findings).toEqual([keptHelper, offDiff]);
    expect(left.ai.findings).toEqual([keptAi]);
  });

  it("returns the report as it is when nothing was dismissed", () => {
    const same = report([helper("3333333333333333", 1)], [ai("t", 2)]);
    expect(withoutDismissed(same, new Set())).toBe(same);
  });
});
