import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { Severity } from "@reviewbot/contracts/severity";
import { cleanText, sanitiseText } from "../findings/sanitise-output.js";

type Paint = (code: Severity | "dim", text: string) => string;

const HOW_TO_TURN_ON = "set REVIEWBOT_LLM_BASE_URL and REVIEWBOT_LLM_MODEL to turn it on; `reviewbot llm doctor` checks the endpoint";

/**
 * The text report's AI section: a heading with the model, the number of comments and the files
 * reviewed, the model's summary, its placed findings by file, those it could not place and the
 * files it did not review. The model read attacker-controlled text, so every string it wrote is
 * sanitised before it reaches a terminal: no escape sequence, control or bidi character.
 */
export function renderAiText(ai: AiReport, paint: Paint): string[] {
  if (ai.status === "off") return [`AI review: off (${ai.note === null || ai.note === "no model is configured" ? HOW_TO_TURN_ON : oneLine(ai.note)})`];
  const status = ai.status === "done" ? "" : paint(ai.status === "failed" ? "error" : "warning", ` [${ai.status}]`);
  const lines = [
    `AI review (${oneLine(ai.model ?? "")}): ${ai.findings.length} comment(s); reviewed ${ai.coverage.reviewedFiles} of ${ai.coverage.files} file(s)${status}`,
  ];
  if (ai.note !== null) lines.push(paint("warning", `  note: ${oneLine(ai.note)}`));
  if (ai.summary !== "") lines.push(...block(ai.summary, "  "));
  const paths = [...new Set(ai.findings.map((finding) => finding.path))].sort((a, b) => a.localeCompare(b));
  for (const path of paths) {
    lines.push(oneLine(path));
    for (const finding of ai.findings.filter((item) => item.path === path)) {
      const where = `${finding.startLine === null ? "" : `${finding.startLine}-`}${finding.line}${finding.side === "LEFT" ? " (base)" : ""}`;
      lines.push(
        `  ${where.padEnd(8)} ${paint(finding.severity, finding.severity.padEnd(7))} ${oneLine(finding.title)} ${paint("dim", `[ai/${finding.category}]`)}`,
      );
      lines.push(...block(finding.body, "           "));
    }
  }
  for (const item of ai.unplaced) lines.push(paint("dim", `not placed: ${oneLine(item.path)}:${item.line} ${oneLine(item.title)} (${oneLine(item.reason)})`));
  for (const item of ai.coverage.skipped) lines.push(paint("dim", `not reviewed: ${oneLine(item.path)} (${oneLine(item.reason)})`));
  lines.push(
    paint(
      "dim",
      `usage: ${ai.usage.inputTokens} input and ${ai.usage.outputTokens} output tokens, ${ai.usage.turns} turn(s), ${ai.usage.toolCalls} tool call(s)`,
    ),
  );
  return lines;
}

function oneLine(text: string): string {
  return cleanText(text).trim();
}

function block(text: string, indent: string): string[] {
  const { text: clean } = sanitiseText(text, { maxBytes: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY, secrets: [] });
  return clean
    .trimEnd()
    .split("\n")
    .map((line) => (line.trim() === "" ? "" : `${indent}${line}`));
}
