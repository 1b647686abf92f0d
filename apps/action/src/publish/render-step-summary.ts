import type { PublishedReport } from "@reviewbot/contracts/published-report";
import type { CheckRunAnnotation } from "@reviewbot/github/render-annotations";
import { renderPrSummary } from "@reviewbot/github/render-pr-summary";
import { sanitiseCodeSpan, sanitiseMarkdown } from "@reviewbot/github/sanitise-markdown";
import { ANNOTATIONS_SHOWN_PER_TYPE } from "./annotation-commands.js";

/** GitHub's limit for one step's summary (1 MiB; a larger one is not shown), with room to spare. */
export const STEP_SUMMARY_MAX_BYTES = 1_000_000;

const LEVEL = { failure: "error", warning: "warning", notice: "notice" } as const;

/**
 * The step summary as Markdown: where the results went, the review's errors (helpers refused, say),
 * the fleet's PR summary of the report, and
 * every annotation the runner does not show (past {@link ANNOTATIONS_SHOWN_PER_TYPE} of a type),
 * escaped like the summary's own findings, listed while they fit; the SARIF file holds all.
 */
export function renderStepSummary(input: {
  readonly report: PublishedReport;
  readonly headSha: string;
  readonly destinations: readonly string[];
  readonly overflow: readonly CheckRunAnnotation[];
  readonly sarifFile: string;
}): string {
  const errors = input.report.errors.map((error) => `- ${sanitiseMarkdown(error)}`);
  const head = [
    ...input.destinations.map((line) => `- ${line}`),
    ...(errors.length === 0 ? [] : ["", "### Errors", "", ...errors]),
    "",
    renderPrSummary(summaryInput(input.report, input.headSha)),
  ];
  if (input.overflow.length === 0) return `${head.join("\n")}\n`;
  const lines = [
    ...head,
    "",
    `### Findings not shown as annotations`,
    "",
    `GitHub shows ${ANNOTATIONS_SHOWN_PER_TYPE} annotations of each type per step; these ${input.overflow.length} are the rest.`,
    "",
  ];
  let bytes = Buffer.byteLength(lines.join("\n"));
  for (const [index, annotation] of input.overflow.entries()) {
    const line = `- **${LEVEL[annotation.annotation_level]}** ${sanitiseCodeSpan(`${annotation.path}:${annotation.start_line}`)} ${sanitiseMarkdown(annotation.title)}: ${sanitiseMarkdown(annotation.message)}`;
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > STEP_SUMMARY_MAX_BYTES - 1000) {
      lines.push(`- … and ${input.overflow.length - index} more: the SARIF file ${sanitiseCodeSpan(input.sarifFile)} lists every finding.`);
      break;
    }
    lines.push(line);
  }
  return `${lines.join("\n")}\n`;
}

function summaryInput(report: PublishedReport, headSha: string): Parameters<typeof renderPrSummary>[0] {
  return { report, headSha, previous: null, threads: {}, commands: [], paused: false, dismissed: 0 };
}
