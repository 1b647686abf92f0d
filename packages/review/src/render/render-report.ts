import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { Finding } from "../findings/finding.js";
import type { Report } from "../pipeline/report.js";
import { renderAiText } from "./render-ai-text.js";
import { renderPrSummary } from "@reviewbot/github/render-pr-summary";
import { toPublishedReport } from "../pipeline/to-published-report.js";
import { renderSarif } from "./render-sarif.js";

export const REPORT_FORMATS = ["text", "json", "sarif"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const COLOURS = { error: "\u001b[31m", warning: "\u001b[33m", notice: "\u001b[36m", dim: "\u001b[2m", reset: "\u001b[0m" } as const;

/**
 * One document for machines (`json`: the report, its AI findings without the null `startLine` and
 * `suggestion`, and `summary`, the PR's summary comment as Markdown; `sarif`), or a report for
 * people grouped by file, the AI review in its own section, the summary comment last.
 */
export function renderReport(report: Report, format: ReportFormat, colour: boolean): string {
  if (format === "json") return `${JSON.stringify({ ...report, ai: aiJson(report.ai), summary: summaryOf(report) }, null, 2)}\n`;
  if (format === "sarif") return `${JSON.stringify(renderSarif(report), null, 2)}\n`;
  const paint = (code: keyof typeof COLOURS, text: string): string => (colour ? `${COLOURS[code]}${text}${COLOURS.reset}` : text);
  const lines = [
    `reviewbot: ${report.repo}  ${report.base.ref}@${report.base.sha.slice(0, 12)} ← ${report.head.ref}@${report.head.sha.slice(0, 12)}`,
    `engine: ${report.engine}${report.sandboxed ? "" : paint("error", " (UNSANDBOXED)")}   .ai/: ${describeOverlay(report)}`,
  ];
  if (report.overlay.ignoredPrChanges.length > 0) {
    lines.push(paint("warning", `the PR's changes to ${report.overlay.ignoredPrChanges.join(", ")} were ignored: .ai/ comes from the trusted commit`));
  }
  if (report.context !== null) lines.push(`context-script: ${report.context.outcome}, ${report.context.skipFiles.length} file(s) skipped`);
  for (const error of report.config.errors) lines.push(paint("error", `config: ${error.message}`));
  for (const helper of report.helpers) {
    lines.push(`helper ${helper.name} [${helper.image}, ${helper.engine}]: ${helper.outcome}, ${helper.findings.length} finding(s), ${helper.durationMs} ms`);
  }
  lines.push("");
  const byFile = new Map<string, Finding[]>();
  for (const finding of report.findings) byFile.set(finding.path, [...(byFile.get(finding.path) ?? []), finding]);
  for (const [path, findings] of [...byFile.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(path);
    for (const finding of findings) {
      const where = finding.line === null ? "" : `${finding.line}${finding.column === null ? "" : `:${finding.column}`}`;
      const rule = finding.rule === null ? "" : paint("dim", ` (${finding.rule})`);
      lines.push(
        `  ${where.padEnd(8)} ${paint(finding.severity, finding.severity.padEnd(7))} ${finding.message}${rule} ${paint("dim", `[${finding.helper}]`)}`,
      );
    }
  }
  lines.push(
    "",
    `${report.findings.length} finding(s) on the PR's ${report.filtered.mode === "added" ? "added lines" : `diff (${report.filtered.mode})`}; ${report.filtered.dropped} elsewhere not shown`,
  );
  lines.push("", ...renderAiText(report.ai, paint));
  for (const error of report.errors) lines.push(paint("warning", `note: ${error}`));
  lines.push("", paint("dim", "--- the PR's summary comment ---"), summaryOf(report));
  return `${lines.join("\n")}\n`;
}

/**
 * The summary comment the fleet would post for this review (the same renderer, from the same
 * published report): a first review, so nothing to compare with and no threads to link.
 */
function summaryOf(report: Report): string {
  return renderPrSummary({
    report: toPublishedReport(report),
    headSha: report.head.sha,
    previous: null,
    threads: {},
    commands: [],
    paused: false,
    dismissed: 0,
  });
}

/** The report's AI review as the JSON output's contract has it: optional fields left out, not null. */
function aiJson(ai: AiReport): object {
  const findings = ai.findings.map((finding) => ({
    path: finding.path,
    line: finding.line,
    ...(finding.startLine === null ? {} : { startLine: finding.startLine }),
    side: finding.side,
    severity: finding.severity,
    category: finding.category,
    title: finding.title,
    body: finding.body,
    ...(finding.suggestion === null ? {} : { suggestion: finding.suggestion }),
  }));
  return { ...ai, findings };
}

function describeOverlay(report: Report): string {
  const { commit } = report.overlay;
  const at = commit === null ? "" : ` ${commit.ref}@${commit.sha.slice(0, 12)}`;
  if (report.overlay.source === "ref") return `from the head of${at} (the PR's .ai/ is ignored)`;
  if (report.overlay.source === "base") return `from the base commit${at} (the PR's .ai/ is ignored)`;
  if (report.overlay.source === "absent") return `none on${at === "" ? " the trusted commit" : at}`;
  return `failed closed: ${report.overlay.reason ?? "the trusted commit is unreadable"}`;
}
