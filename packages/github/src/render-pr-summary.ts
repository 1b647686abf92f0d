import type { PublishedFinding, PublishedReport } from "@reviewbot/contracts/published-report";
import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { INCOMPLETE_HELPER_OUTCOMES } from "@reviewbot/contracts/helper-outcome";
import type { Severity } from "@reviewbot/contracts/severity";
import { countOf } from "./count-of.js";
import { aiFingerprint, fingerprintOf } from "./finding-fingerprint.js";
import { joinWithin } from "./join-within.js";
import { sanitiseCodeSpan, sanitiseMarkdown } from "./sanitise-markdown.js";

/** GitHub's limit for an issue comment's body, in characters (bytes here: never more than characters). */
export const ISSUE_COMMENT_MAX = 65_536;

/** One command a maintainer can give, as the help lists it. */
export interface SummaryCommand {
  readonly usage: string;
  readonly description: string;
}

/** The review before this one: its head, and the keys of the findings it had ({@link summaryKeys}). */
export interface PreviousSummary {
  readonly headSha: string;
  readonly keys: readonly string[];
}

/** Everything the PR's summary comment is rendered from; the same for the api and the CLI. */
export interface PrSummaryInput {
  /** The review's report (scrubbed of secrets by the caller). */
  readonly report: PublishedReport;
  readonly headSha: string;
  /** The review before this one on the PR; null on its first. */
  readonly previous: PreviousSummary | null;
  /** The review comment of each posted finding, by fingerprint (our own memory: linked as its thread). */
  readonly threads: Readonly<Record<string, number>>;
  readonly commands: readonly SummaryCommand[];
  /** Automatic reviews on push are paused on this PR. */
  readonly paused: boolean;
  /** Findings dismissed on this PR by a trusted person (not raised again). */
  readonly dismissed: number;
}

const SEVERITIES: readonly Severity[] = ["error", "warning", "notice"];
/** The most findings listed per severity, and walkthrough rows: the check run lists them all. */
const MAX_LISTED = 25;
const MAX_WALKTHROUGH = 100;
const MAX_SKIPPED = 20;

/** A finding of either kind as one line of the summary. */
interface Listed {
  readonly key: string;
  readonly fingerprint: string | null;
  readonly severity: Severity;
  readonly path: string;
  readonly line: number | null;
  readonly text: string;
  readonly by: string;
}

/**
 * The PR's summary comment (without its hidden marker) as Markdown: what the PR does and a
 * walkthrough (model-written), what changed since the last review, the findings by severity with
 * links to our threads, the helpers' outcomes, the AI review's coverage and the commands. Without
 * a model (AI review off) the model's sections are left out. Every text from the PR, a helper or
 * the model is escaped (mentions, links, images, HTML, autolinks, table cells); the whole fits in
 * an issue comment. Pure: the api and the CLI render the same input to the same text.
 */
export function renderPrSummary(input: PrSummaryInput): string {
  const { report } = input;
  const { ai } = report;
  const listed = listFindings(report);
  const lines: string[] = ["## reviewbot summary", "", `Reviewed head \`${input.headSha.slice(0, 12)}\`.`];
  if (input.paused) lines.push("", "**Paused:** automatic reviews on push are paused on this PR; commands still work.");
  if (ai.status !== "off" && ai.description !== undefined) lines.push("", "### What this PR does", "", sanitiseMarkdown(ai.description));
  const walkthrough = ai.status === "off" ? [] : (ai.walkthrough ?? []);
  if (walkthrough.length > 0) {
    lines.push("", "### Walkthrough", "", "| file | what changed |", "| --- | --- |");
    for (const row of walkthrough.slice(0, MAX_WALKTHROUGH)) lines.push(`| ${sanitiseMarkdown(row.path)} | ${sanitiseMarkdown(row.change)} |`);
    if (walkthrough.length > MAX_WALKTHROUGH) lines.push("", `_and ${walkthrough.length - MAX_WALKTHROUGH} more files_`);
  }
  if (input.previous !== null) lines.push("", "### Since the last review", "", sinceWords(input.previous, input, listed));
  lines.push("", "### Findings", "", findingTotals(listed, input.dismissed));
  for (const severity of SEVERITIES) {
    const ofSeverity = listed.filter((finding) => finding.severity === severity);
    if (ofSeverity.length === 0) continue;
    lines.push("", `**${severity}s**`, "");
    for (const finding of ofSeverity.slice(0, MAX_LISTED)) lines.push(findingLine(finding, input.threads));
    if (ofSeverity.length > MAX_LISTED) lines.push(`- _and ${ofSeverity.length - MAX_LISTED} more in the check run_`);
  }
  lines.push("", "### Helpers", "");
  if (report.helpers.length === 0) lines.push("No helpers ran.");
  else {
    lines.push("| helper | outcome | findings |", "| --- | --- | ---: |");
    for (const helper of report.helpers) {
      const outcome = INCOMPLETE_HELPER_OUTCOMES.has(helper.outcome) ? `**${helper.outcome}**` : helper.outcome;
      lines.push(`| ${sanitiseMarkdown(helper.name)} | ${outcome} | ${helper.findings} |`);
    }
  }
  lines.push("", "### AI review", "", coverageWords(report));
  if (input.commands.length > 0) {
    lines.push("", "<details><summary>Commands</summary>", "");
    for (const command of input.commands) lines.push(`- ${sanitiseCodeSpan(command.usage)}: ${sanitiseMarkdown(command.description)}`);
    lines.push("", "</details>");
  }
  return joinWithin(lines, ISSUE_COMMENT_MAX, "65,536-character");
}

/** The keys of a report's findings, to tell at the next review what is new and what is gone. */
export function summaryKeys(report: PublishedReport): string[] {
  return listFindings(report).map((finding) => finding.key);
}

function listFindings(report: PublishedReport): Listed[] {
  const helper = (finding: PublishedFinding): Listed => {
    const fingerprint = fingerprintOf(finding);
    return {
      // A finding off the diff has no fingerprint: it is known by what it says and where.
      key: fingerprint ?? JSON.stringify(["helper", finding.path, finding.helper, finding.rule ?? finding.message]),
      fingerprint,
      severity: finding.severity,
      path: finding.path,
      line: finding.line,
      text: finding.message,
      by: finding.helper,
    };
  };
  const model = (finding: PlacedAiFinding): Listed => {
    const fingerprint = aiFingerprint(finding);
    return { key: fingerprint, fingerprint, severity: finding.severity, path: finding.path, line: finding.line, text: finding.title, by: "AI review" };
  };
  return [...report.findings.map(helper), ...report.ai.findings.map(model)];
}

function findingTotals(listed: readonly Listed[], dismissed: number): string {
  const counts = SEVERITIES.map((severity) => countOf(listed.filter((finding) => finding.severity === severity).length, severity));
  const dismissedWords = dismissed > 0 ? ` ${countOf(dismissed, "finding")} dismissed on this PR ${dismissed === 1 ? "is" : "are"} not raised again.` : "";
  return `${counts.join(", ")}.${dismissedWords}`;
}

function findingLine(finding: Listed, threads: Readonly<Record<string, number>>): string {
  const where = `${sanitiseMarkdown(finding.path)}${finding.line === null ? "" : `:${finding.line}`}`;
  const thread = finding.fingerprint === null ? undefined : threads[finding.fingerprint];
  // Our own comment's id from the PR's memory: the anchor GitHub gives a review comment on the PR's page.
  const link = thread === undefined ? "" : ` ([thread](#discussion_r${String(thread)}))`;
  return `- ${where}: ${sanitiseMarkdown(finding.text)} (${sanitiseMarkdown(finding.by)})${link}`;
}

function sinceWords(previous: PreviousSummary, input: PrSummaryInput, listed: readonly Listed[]): string {
  const before = new Set(previous.keys);
  const now = new Set(listed.map((finding) => finding.key));
  const added = [...now].filter((key) => !before.has(key)).length;
  const gone = [...before].filter((key) => !now.has(key)).length;
  const incremental =
    input.report.ai.since === null
      ? ""
      : ` The AI review read only what changed since \`${input.report.ai.since.slice(0, 12)}\`, and kept its earlier findings whose lines are unchanged.`;
  const from =
    previous.headSha === input.headSha ? "The same head as the last review" : `From \`${previous.headSha.slice(0, 12)}\` to \`${input.headSha.slice(0, 12)}\``;
  return `${from}: ${countOf(added, "new finding")}, ${countOf(gone, "finding")} no longer found.${incremental}`;
}

function coverageWords(report: PublishedReport): string {
  const { ai } = report;
  if (ai.status === "off") return `Off${ai.note === null ? "" : ` (${sanitiseMarkdown(ai.note)})`}: this summary has the helpers' part only.`;
  const status = `**${ai.status}**${ai.model === null ? "" : ` (model ${sanitiseCodeSpan(ai.model)})`}`;
  const skipped = ai.coverage.skipped;
  const skippedWords =
    skipped.length === 0
      ? "."
      : `; skipped: ${skipped
          .slice(0, MAX_SKIPPED)
          .map((entry) => `${sanitiseMarkdown(entry.path)} (${sanitiseMarkdown(entry.reason)})`)
          .join(", ")}${skipped.length > MAX_SKIPPED ? `, and ${skipped.length - MAX_SKIPPED} more` : ""}.`;
  const note = ai.note === null ? "" : ` ${sanitiseMarkdown(ai.note)}.`;
  return `${status}: reviewed ${ai.coverage.reviewedFiles} of ${ai.coverage.files} changed files${skippedWords}${note}`;
}
