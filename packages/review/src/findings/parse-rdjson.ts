import { createFindingCollector, type FindingCollector } from "./finding-collector.js";
import type { Severity } from "@reviewbot/contracts/severity";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { isJsonObject, member, readJsonArray, readJsonOutput } from "./json-input.js";

// reviewdog's Severity enum (proto/rdf/reviewdog.proto); protojson may also print the numbers.
const LEVELS: readonly (readonly [string, Severity])[] = [
  ["UNKNOWN_SEVERITY", "warning"],
  ["ERROR", "error"],
  ["WARNING", "warning"],
  ["INFO", "notice"],
];

/**
 * Parses reviewdog's Diagnostic Format as one JSON document, a `DiagnosticResult`
 * (`{ "source", "severity", "diagnostics": [...] }`). Each diagnostic's `location.path`,
 * `location.range.start.line/column`, `range.end.line`, `message` and `code.value` are read.
 * `ERROR`/`WARNING`/`INFO` become error/warning/notice; a diagnostic without a severity takes
 * the result's, and `UNKNOWN_SEVERITY` or none at all is a warning.
 */
export function parseRdjson(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  const result = readJsonArray(output, collector, "diagnostics", "output is not a reviewdog DiagnosticResult: `diagnostics` is not an array");
  const defaultLevel = member(result?.document, "severity");
  result?.items.forEach((diagnostic: unknown, index) => {
    readDiagnostic(collector, diagnostic, defaultLevel, `diagnostics[${index}]`);
  });
  return collector.outcome();
}

/**
 * Parses reviewdog's Diagnostic Format as JSON Lines: one `Diagnostic` object per line, blank
 * lines ignored. A line that is not valid JSON is noted and the others are still read.
 */
export function parseRdjsonl(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  output.split("\n").forEach((line, index) => {
    const where = `line ${index + 1}`;
    const value = readJsonOutput(line, {
      problem: (message) => {
        collector.problem(`${where}: ${message}`);
      },
    });
    if (value !== undefined) readDiagnostic(collector, value, undefined, where);
  });
  return collector.outcome();
}

function readDiagnostic(collector: FindingCollector, diagnostic: unknown, defaultLevel: unknown, where: string): void {
  if (!isJsonObject(diagnostic)) {
    collector.problem(`${where} is not an object`);
    return;
  }
  const location = member(diagnostic, "location");
  const range = member(location, "range");
  const level = levelName(member(diagnostic, "severity") ?? defaultLevel);
  collector.add(
    {
      path: member(location, "path"),
      line: member(range, "start", "line"),
      endLine: member(range, "end", "line"),
      column: member(range, "start", "column"),
      message: member(diagnostic, "message"),
      rule: member(diagnostic, "code", "value"),
      toolLevel: level,
      fallback: LEVELS.find(([name]) => name === level)?.[1] ?? "warning",
    },
    where,
  );
}

function levelName(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number") return LEVELS[value]?.[0] ?? null;
  return null;
}
