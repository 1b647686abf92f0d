import { createFindingCollector } from "./finding-collector.js";
import type { Severity } from "@reviewbot/contracts/severity";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { isJsonObject, member, readJsonArray } from "./json-input.js";

// ESLint's numeric severities (https://eslint.org/docs/latest/use/formatters/#json); 0 ("off")
// is never reported, so anything else unknown is kept as a notice rather than dropped.
const LEVELS: ReadonlyMap<unknown, readonly [string, Severity]> = new Map([
  [2, ["error", "error"]],
  [1, ["warning", "warning"]],
]);

/**
 * Parses ESLint's `json` formatter output: `[{ filePath, messages: [{ ruleId, severity, message,
 * line, column, endLine, fatal }] }]`. Severity 2 is an error and 1 a warning; the names `error`
 * and `warning` are what the severity map is looked up by. Fatal messages (parse errors) have no
 * rule and are kept as findings: a file ESLint could not parse is worth reporting.
 */
export function parseEslintJson(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  const files = readJsonArray(output, collector, null, "output is not ESLint JSON: the document is not an array");
  files?.items.forEach((file: unknown, fileIndex) => {
    const messages = member(file, "messages");
    if (!isJsonObject(file) || !Array.isArray(messages)) {
      collector.problem(`[${fileIndex}] is not an ESLint file result with a messages array`);
      return;
    }
    messages.forEach((message: unknown, index) => {
      const level = LEVELS.get(member(message, "severity"));
      collector.add(
        {
          path: member(file, "filePath"),
          line: member(message, "line"),
          endLine: member(message, "endLine"),
          column: member(message, "column"),
          message: member(message, "message"),
          rule: member(message, "ruleId"),
          toolLevel: level?.[0] ?? null,
          fallback: level?.[1] ?? "notice",
        },
        `[${fileIndex}].messages[${index}]`,
      );
    });
  });
  return collector.outcome();
}
