import type { FindingsLimits } from "@reviewbot/policy/operator-policy";
import type { Finding } from "../findings/finding.js";
import { formatBytes } from "../findings/format-bytes.js";
import type { HelperReport } from "./report.js";

/** What one finding is counted as against `retainedBytes`: its texts, and the rest of its fields. */
export function retainedSize(finding: Finding): number {
  return finding.path.length + finding.message.length + (finding.rule?.length ?? 0) + 100;
}

/**
 * Keeps at most `perReview` findings, of at most `retainedBytes` in all (see {@link retainedSize}),
 * across a review's helpers, in the helpers' order: the first helpers keep theirs, the one that
 * crosses a cap keeps what fits, later ones keep none. A helper that lost findings says how many in
 * its `error` (after any error it had), which the review lists with its infrastructure failures:
 * a report that is missing findings is not complete.
 */
export function capReviewFindings(helpers: readonly HelperReport[], limits: Pick<FindingsLimits, "perReview" | "retainedBytes">): HelperReport[] {
  let count = 0;
  let bytes = 0;
  return helpers.map((helper) => {
    let kept = 0;
    for (const finding of helper.findings) {
      const size = retainedSize(finding);
      if (count + 1 > limits.perReview || bytes + size > limits.retainedBytes) break;
      count += 1;
      bytes += size;
      kept += 1;
    }
    // Once a cap is reached nothing more is kept, even a smaller finding of a later helper.
    if (kept < helper.findings.length) {
      count = limits.perReview;
      bytes = limits.retainedBytes;
    }
    const dropped = helper.findings.length - kept;
    if (dropped === 0) return helper;
    const cut = `${String(dropped)} findings past the review's caps of ${String(limits.perReview)} findings (findings.perReview) and ${formatBytes(limits.retainedBytes)} (findings.retainedBytes) not kept`;
    return {
      ...helper,
      findings: helper.findings.slice(0, kept),
      problems: [...helper.problems, cut],
      error: helper.error === undefined ? cut : `${helper.error}; ${cut}`,
    };
  });
}
