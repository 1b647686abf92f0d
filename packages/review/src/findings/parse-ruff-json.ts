import { createFindingCollector } from "./finding-collector.js";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { member, readJsonArray } from "./json-input.js";

/**
 * Parses Ruff's `--output-format json`: `[{ code, message, filename, location: { row, column },
 * end_location: { row, column } }]`. Ruff has no levels: every violation is an `error`, as in
 * Ruff's own `github` output format, unless the severity map says otherwise (by code or
 * `default`). A syntax error has a `null` code and is kept without a rule.
 */
export function parseRuffJson(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  const violations = readJsonArray(output, collector, null, "output is not Ruff JSON: the document is not an array");
  violations?.items.forEach((violation: unknown, index) => {
    collector.add(
      {
        path: member(violation, "filename"),
        line: member(violation, "location", "row"),
        endLine: member(violation, "end_location", "row"),
        column: member(violation, "location", "column"),
        message: member(violation, "message"),
        rule: member(violation, "code"),
        toolLevel: null,
        fallback: "error",
      },
      `[${index}]`,
    );
  });
  return collector.outcome();
}
