import type { PublishedReport } from "@reviewbot/contracts/published-report";
import { aiFingerprint, fingerprintOf } from "./finding-fingerprint.js";

/**
 * The report less the findings whose fingerprints were dismissed on the PR, helpers' and the AI
 * review's alike, so neither a review comment nor an annotation shows them (issue 23, part 3). A
 * helper finding without an anchor has no fingerprint: it was never a comment one could dismiss.
 */
export function withoutDismissed(report: PublishedReport, dismissed: ReadonlySet<string>): PublishedReport {
  if (dismissed.size === 0) return report;
  const kept =
    <T>(fingerprint: (finding: T) => string | null) =>
    (finding: T) => {
      const print = fingerprint(finding);
      return print === null || !dismissed.has(print);
    };
  return {
    ...report,
    findings: report.findings.filter(kept(fingerprintOf)),
    ai: { ...report.ai, findings: report.ai.findings.filter(kept(aiFingerprint)) },
  };
}
