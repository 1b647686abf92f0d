import type { AiReport } from "@reviewbot/contracts/ai-report";
import { countOf } from "./count-of.js";
import { sanitiseCodeSpan, sanitiseMarkdown } from "./sanitise-markdown.js";

/** Shown when no model is configured: what an operator sets for a first AI review. */
const HOW_TO_TURN_ON = [
  "The AI review is **off**: no model is configured. The api's operator turns it on with four settings, for example:",
  "",
  "- Ollama: `REVIEWBOT_LLM_PROTOCOL=openai`, `REVIEWBOT_LLM_BASE_URL=http://127.0.0.1:11434/v1`, `REVIEWBOT_LLM_MODEL=qwen2.5-coder:14b`, `REVIEWBOT_LLM_CONTEXT_TOKENS=32768` (and `OLLAMA_CONTEXT_LENGTH` on the server to match)",
  "- vLLM: `REVIEWBOT_LLM_PROTOCOL=openai`, `REVIEWBOT_LLM_BASE_URL=http://vllm:8000/v1`, `REVIEWBOT_LLM_MODEL=<served model>`, `REVIEWBOT_LLM_API_KEY_FILE=/run/secrets/llm-key`",
  "- Anthropic: `REVIEWBOT_LLM_PROTOCOL=anthropic`, `REVIEWBOT_LLM_BASE_URL=https://api.anthropic.com`, `REVIEWBOT_LLM_MODEL=<model>`, `REVIEWBOT_LLM_API_KEY_FILE=/run/secrets/anthropic-key`",
];

/**
 * The check run's AI section: status, model, coverage, the model's summary and the findings it
 * made that could not be placed on the diff. Every model-written string is sanitised like helper
 * output: it was written by a model that read attacker-controlled text.
 */
export function renderAiSummary(ai: AiReport): string[] {
  if (ai.status === "off")
    return ["", "### AI review", ...(ai.note === null || ai.note === "no model is configured" ? HOW_TO_TURN_ON : [`Off: ${sanitiseMarkdown(ai.note)}`])];
  const lines = [
    "",
    "### AI review",
    `**Status:** ${ai.status}${ai.model === null ? "" : ` (model ${sanitiseCodeSpan(ai.model)})`}; ${countOf(ai.findings.length, "comment")} on the diff.`,
    ...(ai.since === null
      ? []
      : [`**Incremental:** the changes since \`${ai.since.slice(0, 12)}\`, the last review's head; its findings whose lines are unchanged are carried over.`]),
    `**Coverage:** reviewed ${ai.coverage.reviewedFiles} of ${ai.coverage.files} changed files` +
      (ai.coverage.skipped.length === 0
        ? "."
        : `; skipped: ${ai.coverage.skipped
            .slice(0, 20)
            .map((s) => `${sanitiseMarkdown(s.path)} (${sanitiseMarkdown(s.reason)})`)
            .join(", ")}${ai.coverage.skipped.length > 20 ? `, and ${ai.coverage.skipped.length - 20} more` : ""}.`),
  ];
  if (ai.note !== null) lines.push(`**Note:** ${sanitiseMarkdown(ai.note)}`);
  if (ai.summary !== "") lines.push("", sanitiseMarkdown(ai.summary, { inline: false }));
  if (ai.unplaced.length > 0) {
    lines.push("", `**Not placed on the diff** (${ai.unplaced.length}):`);
    for (const item of ai.unplaced.slice(0, 50)) {
      lines.push(`- ${sanitiseMarkdown(item.path)}:${item.line}: ${sanitiseMarkdown(item.title)} (${sanitiseMarkdown(item.reason)})`);
    }
  }
  lines.push(
    "",
    `_Usage: ${ai.usage.inputTokens} input and ${ai.usage.outputTokens} output tokens, ${ai.usage.turns} turns, ${ai.usage.toolCalls} tool calls._`,
  );
  return lines;
}
