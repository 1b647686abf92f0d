import { PublishedReport } from "@reviewbot/contracts/published-report";
import type { Report } from "./report.js";

const MAX_LINE = 2000;

/**
 * What the publisher receives of a report: outcomes, findings and hunks, never helper output (it
 * stays in the worker's logs). Free text is cut to the contract's limits, and the result is
 * checked against the contract here, where it is written.
 */
export function toPublishedReport(report: Report): PublishedReport {
  return PublishedReport.parse({
    engine: report.engine,
    sandboxed: report.sandboxed,
    overlay: {
      source: report.overlay.source,
      failedClosed: report.overlay.failedClosed,
      commit: report.overlay.commit === null ? null : { from: report.overlay.commit.from, ref: report.overlay.commit.ref, sha: report.overlay.commit.sha },
      ignoredPrChanges: report.overlay.ignoredPrChanges.slice(0, 1000),
    },
    configErrors: report.config.errors.slice(0, 200).map((error) => cut(error.message)),
    helpers: report.helpers.slice(0, 100).map((helper) => ({
      name: helper.name,
      image: helper.image,
      outcome: helper.outcome,
      durationMs: Math.max(0, Math.round(helper.durationMs)),
      findings: helper.findings.length,
      problems: helper.problems.slice(0, 100).map(cut),
    })),
    findings: report.findings.slice(0, 20_000).map((finding) => ({
      path: finding.path,
      line: finding.line,
      endLine: finding.endLine,
      column: finding.column,
      severity: finding.severity,
      message: finding.message.slice(0, 65_535),
      rule: finding.rule === null ? null : finding.rule.slice(0, 1024),
      helper: finding.helper,
      anchor: finding.anchor,
    })),
    filtered: { mode: report.filtered.mode, dropped: report.filtered.dropped },
    errors: report.errors.slice(0, 200).map(cut),
    hunks: Object.fromEntries(Object.entries(report.hunks).map(([path, ranges]) => [path, ranges.slice(0, 10_000).map(({ start, end }) => ({ start, end }))])),
    durationMs: Math.max(0, Math.round(report.timings.totalMs)),
    ai: {
      ...report.ai,
      summary: report.ai.summary.slice(0, 8000),
      ...(report.ai.walkthrough === undefined ? {} : { walkthrough: report.ai.walkthrough.slice(0, 1000) }),
      findings: report.ai.findings.slice(0, 500),
      unplaced: report.ai.unplaced.slice(0, 500),
      coverage: { ...report.ai.coverage, skipped: report.ai.coverage.skipped.slice(0, 1000) },
      note: report.ai.note === null ? null : cut(report.ai.note),
    },
    minInlineSeverity: report.config.minInlineSeverity,
    ...(report.skipped === null ? {} : { skipped: report.skipped }),
  });
}

function cut(text: string): string {
  return text.length <= MAX_LINE ? text : `${text.slice(0, MAX_LINE - 1)}…`;
}
