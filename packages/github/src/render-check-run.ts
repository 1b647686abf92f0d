import type { ErrorCode } from "@reviewbot/core/errors";
import { INCOMPLETE_HELPER_OUTCOMES } from "@reviewbot/contracts/helper-outcome";
import { Severity } from "@reviewbot/contracts/severity";
import type { PublishedFinding, PublishedReport } from "@reviewbot/contracts/published-report";
import { orderFindings, renderAnnotation, type CheckRunAnnotation } from "./render-annotations.js";
import { renderReportSummary } from "./render-report-summary.js";
import { sanitiseCodeSpan, sanitiseMarkdown } from "./sanitise-markdown.js";
import { countOf } from "./count-of.js";
import { renderSkippedReview } from "./render-skipped-review.js";

export type CheckConclusion = "success" | "neutral" | "failure" | "cancelled" | "skipped";

/** What a finished check run shows. */
export interface RenderedCheckRun {
  readonly conclusion: CheckConclusion;
  readonly title: string;
  readonly summary: string;
  readonly text?: string;
  readonly annotations: readonly CheckRunAnnotation[];
}

/** What to render: a finished review, one a newer head superseded, one that failed for good, or a paused PR's push. */
export type CheckRunOutcome =
  | { readonly kind: "completed"; readonly report: PublishedReport }
  | { readonly kind: "superseded"; readonly supersededBy: string }
  | { readonly kind: "failed"; readonly code: ErrorCode; readonly reason: string }
  | { readonly kind: "paused" };

/** Default cap on annotations per check run: 20 batches of 50. */
export const DEFAULT_MAX_ANNOTATIONS = 1000;

/**
 * The conclusion rule (fail closed): `failure` when there is an error-severity finding, a
 * configuration error, an overlay that failed closed, a pipeline error, or a helper that did not
 * finish (failed, timeout, OOM, output cut, cancelled) — branch protection treats `neutral` as
 * passing, so a PR author who makes a helper hang must not get a passing check. An AI review
 * counts like a helper: its findings by severity, and a `failed` one makes the review incomplete
 * (a PR that talks the model out of submitting must not pass for it). The model has no say in the
 * conclusion other than the severities it gave. Otherwise `neutral` when there are warnings (an AI
 * review that covered only part of the PR is at most `neutral`), else `success`.
 */
export function decideConclusion(report: PublishedReport): { conclusion: CheckConclusion; incomplete: boolean } {
  const incomplete =
    report.configErrors.length > 0 ||
    report.overlay.failedClosed ||
    report.errors.length > 0 ||
    report.helpers.some((helper) => INCOMPLETE_HELPER_OUTCOMES.has(helper.outcome)) ||
    report.ai.status === "failed";
  const severities = [...report.findings, ...report.ai.findings].map((f) => f.severity);
  if (incomplete || severities.includes("error")) return { conclusion: "failure", incomplete };
  if (severities.includes("warning") || report.ai.status === "partial") return { conclusion: "neutral", incomplete };
  return { conclusion: "success", incomplete };
}

/**
 * Renders the final state of the `reviewbot` check run for one head: conclusion, title, summary,
 * details and annotations (most important first, at most `maxAnnotations`). Pure: the sink
 * publishes what this returns.
 */
export function renderCheckRun(outcome: CheckRunOutcome, options: { readonly headSha: string; readonly maxAnnotations?: number }): RenderedCheckRun {
  if (outcome.kind === "superseded") {
    return {
      conclusion: "cancelled",
      title: "Superseded by a newer commit",
      summary: `This review of \`${options.headSha}\` was superseded by ${sanitiseCodeSpan(outcome.supersededBy)}: see that commit's check run.`,
      annotations: [],
    };
  }
  if (outcome.kind === "failed") {
    return {
      conclusion: outcome.code === "REVIEW_CANCELLED" ? "cancelled" : "failure",
      title: `Review failed: ${sanitiseMarkdown(outcome.code)}`,
      summary: `The review of \`${options.headSha}\` could not be completed (${sanitiseCodeSpan(outcome.code)}): ${sanitiseMarkdown(outcome.reason)}`,
      annotations: [],
    };
  }
  if (outcome.kind === "paused") {
    return {
      conclusion: "skipped",
      title: "Review paused",
      summary: [
        `\`${options.headSha}\` was not reviewed: a maintainer paused the automatic reviews of this pull request (the \`pause\` command).`,
        "The `resume` command reviews the pushes after it again, the `review` command reviews now, and this check run's Re-run button reviews this commit.",
      ].join("\n\n"),
      annotations: [],
    };
  }
  const { report } = outcome;
  if (report.skipped !== undefined) return renderSkippedReview(report, report.skipped, options.headSha);
  const annotations = renderAnnotations(report).slice(0, options.maxAnnotations ?? DEFAULT_MAX_ANNOTATIONS);
  const { conclusion, incomplete } = decideConclusion(report);
  const { summary, text } = renderReportSummary(report, { annotated: annotations.length });
  return { conclusion, title: titleFor(report, incomplete), summary, ...(text === "" ? {} : { text }), annotations };
}

/** Every finding of a completed report as an annotation, the helpers' and the AI review's on the head side, most important first. */
export function renderAnnotations(report: PublishedReport): CheckRunAnnotation[] {
  return orderFindings([...report.findings, ...aiAnnotated(report)]).map(renderAnnotation);
}

/** The AI review's findings on the head side, as annotations (a removed line has no place in the head's file). */
function aiAnnotated(report: PublishedReport): PublishedFinding[] {
  return report.ai.findings
    .filter((finding) => finding.side === "RIGHT")
    .map((finding) => ({
      path: finding.path,
      line: finding.startLine ?? finding.line,
      endLine: finding.line,
      column: null,
      severity: finding.severity,
      message: `${finding.title}\n\n${finding.body}`,
      rule: finding.category,
      helper: "ai",
      anchor: finding.anchor,
    }));
}

function titleFor(report: PublishedReport, incomplete: boolean): string {
  const all = [...report.findings, ...report.ai.findings];
  const counts = Severity.options
    .map((severity) => [severity, all.filter((f) => f.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => countOf(n, severity));
  const findings = counts.length === 0 ? "no problems found" : counts.join(", ");
  if (report.configErrors.length > 0) return `Configuration error; ${findings}`;
  if (incomplete) return `Review incomplete; ${findings}`;
  return findings.charAt(0).toUpperCase() + findings.slice(1);
}
