import type { PublishedReport } from "@reviewbot/contracts/published-report";
import { INCOMPLETE_HELPER_OUTCOMES } from "@reviewbot/contracts/helper-outcome";
import { sanitiseMarkdown } from "./sanitise-markdown.js";
import { joinWithin } from "./join-within.js";
import { countOf } from "./count-of.js";
import { renderAiSummary } from "./render-ai-summary.js";

/** GitHub's limit for a check run's `output.summary` and `output.text`. */
export const CHECK_OUTPUT_MAX_BYTES = 65_535;

export interface SummaryFacts {
  /** Annotations published vs findings in the report (the rest did not fit). */
  readonly annotated: number;
}

/**
 * Renders the check run's summary (totals, helpers, overlay, sandbox) and text (details) as
 * Markdown. Every value from the report is sanitised; lines are added while they fit in GitHub's
 * 65,535-byte limit and the rest is replaced by a line saying how much did not fit.
 */
export function renderReportSummary(report: PublishedReport, facts: SummaryFacts): { summary: string; text: string } {
  const count = (severity: string): number => report.findings.filter((f) => f.severity === severity).length;
  const summary: string[] = [
    `**Findings:** ${countOf(count("error"), "error")}, ${countOf(count("warning"), "warning")}, ${countOf(count("notice"), "notice")}` +
      ` (${report.filtered.dropped} outside the diff filtered out, filter \`${report.filtered.mode}\`).`,
    `**Sandbox:** engine \`${report.engine}\`, ${report.sandboxed ? "sandboxed" : "**not sandboxed**"}.`,
    `**Configuration:** \`.ai/\` ${overlayWords(report.overlay)}` +
      (report.overlay.ignoredPrChanges.length > 0 ? `; ${report.overlay.ignoredPrChanges.length} change(s) this PR made under \`.ai/\` were ignored.` : "."),
  ];
  if (facts.annotated < report.findings.length) {
    summary.push(`**Not shown:** ${report.findings.length - facts.annotated} findings did not fit in the annotations.`);
  }
  if (report.configErrors.length > 0) {
    summary.push("", "### Configuration errors", ...report.configErrors.map((e) => `- ${sanitiseMarkdown(e)}`));
  }
  if (report.errors.length > 0) {
    summary.push("", "### Errors", ...report.errors.map((e) => `- ${sanitiseMarkdown(e)}`));
  }
  if (report.helpers.length > 0) {
    summary.push("", "| helper | outcome | findings | duration |", "| --- | --- | ---: | ---: |");
    for (const helper of report.helpers) {
      const outcome = INCOMPLETE_HELPER_OUTCOMES.has(helper.outcome) ? `**${helper.outcome}**` : helper.outcome;
      summary.push(`| ${sanitiseMarkdown(helper.name)} | ${outcome} | ${helper.findings} | ${(helper.durationMs / 1000).toFixed(1)} s |`);
    }
  } else {
    summary.push("", "No helpers ran.");
  }
  summary.push(...renderAiSummary(report.ai));
  const text: string[] = [];
  for (const helper of report.helpers.filter((h) => h.problems.length > 0)) {
    text.push(`### ${sanitiseMarkdown(helper.name)} (${sanitiseMarkdown(helper.image)})`, ...helper.problems.map((p) => `- ${sanitiseMarkdown(p)}`), "");
  }
  if (report.overlay.ignoredPrChanges.length > 0) {
    text.push("### Ignored changes under `.ai/`", ...report.overlay.ignoredPrChanges.map((p) => `- ${sanitiseMarkdown(p)}`));
  }
  return { summary: joinWithin(summary, CHECK_OUTPUT_MAX_BYTES, "65,535-character"), text: joinWithin(text, CHECK_OUTPUT_MAX_BYTES, "65,535-character") };
}

/**
 * Where `.ai/` came from, naming the commit. The ref and SHA go into code spans unescaped: the
 * report's schema allows only ref characters and hex there, so they can carry no Markdown.
 */
function overlayWords(overlay: PublishedReport["overlay"]): string {
  const { commit } = overlay;
  const at = commit === null ? "the trusted commit" : `${refWords(commit)}, commit \`${commit.sha}\`,`;
  switch (overlay.source) {
    case "ref":
    case "base":
      return `from ${at.replace(/,$/, "")}`;
    case "absent":
      return `nowhere: ${at} has none`;
    case "failed-closed":
      return `nowhere: ${at} could not be read, so the PR's \`.ai/\` was removed (failed closed)`;
  }
}

function refWords(commit: NonNullable<PublishedReport["overlay"]["commit"]>): string {
  const branch = commit.ref.replace(/^refs\/heads\//, "");
  return commit.from === "ref" ? `the head of \`${branch}\`` : `the PR's base on \`${branch}\``;
}
