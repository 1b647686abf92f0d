import { sanitiseCodeSpan, sanitiseMarkdown } from "@reviewbot/github/sanitise-markdown";
import { workflowCommand } from "./publish/workflow-command.js";
import type { SarifInputOutcome } from "./read-sarif-inputs.js";

/** One warning annotation per `sarif-input` file that was not read, naming the file and why. */
export function sarifInputWarnings(outcomes: readonly SarifInputOutcome[]): string[] {
  return outcomes.flatMap((outcome) =>
    outcome.read
      ? []
      : [workflowCommand("warning", { title: "reviewbot: sarif-input not read" }, `${outcome.file} ${outcome.problem}; the review went on without it`)],
  );
}

/**
 * The step summary's lines on the `sarif-input` files: how many findings each gave (before the
 * diff filter) and its first problem, or that it was not read and why. The problem may quote the
 * file (untrusted): it is escaped as Markdown.
 */
export function sarifInputNotes(outcomes: readonly SarifInputOutcome[]): string[] {
  return outcomes.map((outcome) => {
    const file = sanitiseCodeSpan(outcome.file);
    if (!outcome.read) return `Code scanner's SARIF ${file}: **not read**: it ${sanitiseMarkdown(outcome.problem)}`;
    const [first] = outcome.problems;
    const problems = first === undefined ? "" : `; ${String(outcome.problems.length)} problem(s), the first: ${sanitiseMarkdown(first)}`;
    return `Code scanner's SARIF ${file}: ${String(outcome.findings)} finding(s) read, filtered to the diff with the others${problems}`;
  });
}
