import { describe, expect, it } from "vitest";
import type { Finding } from "../findings/finding.js";
import { capReviewFindings, retainedSize } from "./cap-review-findings.js";
import type { HelperReport } from "./report.js";

const finding = (index: number, message = "m"): Finding => ({
  path: "a.py",
  line: index + 1,
  endLine: null,
  column: null,
  severity: "warning",
  message,
  rule: "R1",
  helper: "h",
});

function helper(name: string, count: number, message?: string): HelperReport {
  return {
    name,
    image: "base",
    engine: "bwrap",
    sandboxed: true,
    outcome: count > 0 ? "findings" : "passed",
    exitCode: 0,
    signal: null,
    timedOut: false,
    oomKilled: false,
    outputTruncated: false,
    durationMs: 1,
    stdout: "",
    stderr: "",
    findings: Array.from({ length: count }, (_, index) => finding(index, message)),
    problems: [],
    install: null,
  };
}

const SIZE = retainedSize(finding(0));
const kept = (helpers: readonly HelperReport[]) => helpers.map((h) => h.findings.length);
// How many findings each helper's error says were dropped, null without an error.
const droppedOf = (helpers: readonly HelperReport[]) => helpers.map((h) => (h.error === undefined ? null : Number(/^(\d+) findings past/.exec(h.error)?.[1])));

describe("capReviewFindings", () => {
  it.each([
    ["under both caps", [3, 2], { perReview: 10, retainedBytes: 100 * SIZE }, [3, 2], [null, null]],
    ["exactly at the count cap", [3, 2], { perReview: 5, retainedBytes: 100 * SIZE }, [3, 2], [null, null]],
    ["past the count cap in the second helper", [3, 4], { perReview: 5, retainedBytes: 100 * SIZE }, [3, 2], [null, 2]],
    ["past the count cap in the first helper: later ones keep none", [6, 1], { perReview: 5, retainedBytes: 100 * SIZE }, [5, 0], [1, 1]],
    ["past the byte cap", [3, 3], { perReview: 100, retainedBytes: 4 * SIZE }, [3, 1], [null, 2]],
    ["a byte cap below one finding", [1], { perReview: 100, retainedBytes: SIZE - 1 }, [0], [1]],
  ])("%s", (_label, counts, limits, expectedKept, expectedDropped) => {
    const capped = capReviewFindings(
      counts.map((count, index) => helper(`h${String(index)}`, count)),
      limits,
    );
    expect(kept(capped)).toEqual(expectedKept);
    expect(droppedOf(capped)).toEqual(expectedDropped);
  });

  it("names the caps in the helper's error and problems, after an error it already had", () => {
    const [capped] = capReviewFindings([{ ...helper("lint", 3), error: "earlier" }], { perReview: 1, retainedBytes: 1024 * 1024 });
    const line = "2 findings past the review's caps of 1 findings (findings.perReview) and 1 MiB (findings.retainedBytes) not kept";
    expect(capped?.error).toBe(`earlier; ${line}`);
    expect(capped?.problems).toEqual([line]);
  });

  it("counts a long message against the byte cap", () => {
    const long = "x".repeat(10_000);
    const capped = capReviewFindings([helper("lint", 5, long)], { perReview: 100, retainedBytes: 3 * retainedSize(finding(0, long)) });
    expect(kept(capped)).toEqual([3]);
  });

  it("returns a helper under the caps unchanged", () => {
    const input = helper("lint", 2);
    expect(capReviewFindings([input], { perReview: 5, retainedBytes: 1e9 })[0]).toBe(input);
  });
});
