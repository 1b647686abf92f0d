import { describe, expect, it } from "vitest";
import type { HelperReport, Report } from "@reviewbot/review/pipeline/report";
import { REVIEW_ENGINES, useReviewOf } from "../support/review-fixture.js";
import { createReviewRepo, helperEntry, printingHelper } from "../support/review-repos.js";

const REPORT_OUTPUT_CAP = 64 * 1024;

/** Helpers that misbehave in every way the infrastructure must tell apart from "found problems". */
const HELPERS = [
  printingHelper("lint", ["src/new.py:2: E1 added-line finding"]),
  helperEntry("bad", ["./scripts/x.sh"]),
  helperEntry("sleeper", ["sleep", "30"], { timeout_seconds: 1 }),
  // The shell holds all 400 MB in one variable.
  helperEntry("hog", ["sh", "-c", "x=$(head -c 400000000 /dev/zero | tr '\\0' a); echo ${#x}"], { memory_mb: 64 }),
  // The kernel kills `tail` (it holds all it reads: /dev/zero has no newline); `sh` exits 0.
  helperEntry("child-hog", ["sh", "-c", "head -c 600M /dev/zero | tail | wc -c"], { memory_mb: 64 }),
  helperEntry("flood", ["yes"]),
];

function helper(report: Report, name: string): HelperReport {
  const found = report.helpers.find((h) => h.name === name);
  if (found === undefined) throw new Error(`no helper ${name} in the report`);
  return found;
}

describe.each(REVIEW_ENGINES)("review pipeline: helper outcomes ($name)", (kind) => {
  const review = useReviewOf(kind, "review-outcomes", (root) =>
    createReviewRepo(root, {
      helpers: HELPERS,
      fork: (tree) => {
        tree.write("src/new.py", "x = 1\ny = 2\n");
      },
    }),
  );

  it("reports a bad helper's config error by path and still runs the valid helpers", () => {
    const report = review();
    expect(report.config.errors.map((e) => e.path)).toEqual(["helpers[1].command[0]"]);
    expect(report.helpers.map((h) => h.name)).toEqual(["lint", "sleeper", "hog", "child-hog", "flood"]);
    expect(helper(report, "lint").outcome).toBe("findings");
    expect(report.findings.map((f) => [f.path, f.line, f.helper])).toEqual([["src/new.py", 2, "lint"]]);
  });

  it("reports a helper past its timeout as a timeout, not as findings", () => {
    const report = review();
    expect(helper(report, "sleeper")).toMatchObject({ outcome: "timeout", timedOut: true, oomKilled: false, findings: [] });
    expect(helper(report, "sleeper").durationMs).toBeLessThan(10_000);
    expect(report.errors).toContain("sleeper: timeout");
  });

  it("reports a helper past its memory limit as OOM-killed", () => {
    const report = review();
    const hog = helper(report, "hog");
    expect(hog, hog.stdout + hog.stderr).toMatchObject({ outcome: "oom", oomKilled: true, timedOut: false });
    expect(report.errors).toContain("hog: oom");
  });

  it("reports an OOM kill of a helper's child process, though the helper exits 0", () => {
    const report = review();
    expect(helper(report, "child-hog")).toMatchObject({ outcome: "oom", oomKilled: true, timedOut: false });
    expect(report.errors).toContain("child-hog: oom");
  });

  it("cuts a flood of output and keeps at most 64 KiB of it in the report", () => {
    const report = review();
    const flood = helper(report, "flood");
    expect(flood).toMatchObject({ outcome: "truncated", outputTruncated: true, timedOut: false });
    expect(flood.stdout).toMatch(/^y\n/);
    expect(Buffer.byteLength(flood.stdout)).toBeLessThanOrEqual(REPORT_OUTPUT_CAP);
    expect(report.errors).toContain("flood: truncated");
  });
});
