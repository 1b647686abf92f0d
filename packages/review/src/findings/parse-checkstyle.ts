import { quote } from "@reviewbot/policy/config-error";
import { createFindingCollector, decimalOrText } from "./finding-collector.js";
import type { Severity } from "@reviewbot/contracts/severity";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { scanXml } from "./xml-scanner.js";

// Checkstyle's SeverityLevel names; `ignore` is still reported if a tool prints it, as a notice.
const LEVELS: ReadonlyMap<string, Severity> = new Map([
  ["error", "error"],
  ["warning", "warning"],
  ["info", "notice"],
  ["ignore", "notice"],
]);

/**
 * Parses checkstyle XML: `<checkstyle><file name="…"><error line column severity message
 * source/></file></checkstyle>`, as written by checkstyle and by many linters' `checkstyle`
 * formatters. `source` is the rule. Severity `error`/`warning`/`info` become error/warning/
 * notice; a missing or unknown one is a warning. XML is read by a small scanner that refuses
 * DTDs (see `scanXml`); on malformed XML the findings read before the fault are kept.
 */
export function parseCheckstyle(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  if (output.trim() === "") return collector.outcome();
  const scan = scanXml(output);
  if (scan.problem !== null) collector.problem(`malformed XML: ${scan.problem}`);
  const root = scan.events[0];
  if (root !== undefined && root.name !== "checkstyle") {
    collector.problem(`output is not checkstyle XML: the root element is <${quote(root.name, 40)}>`);
    return collector.outcome();
  }
  let file: string | null = null;
  let errors = 0;
  for (const event of scan.events) {
    if (event.type === "close") {
      if (event.name === "file") file = null;
      continue;
    }
    if (event.name === "file") file = event.attributes.get("name") ?? "";
    if (event.name !== "error") continue;
    errors += 1;
    const where = `error ${errors}`;
    if (file === null) {
      collector.problem(`${where} is outside a <file> element`);
      continue;
    }
    const severity = event.attributes.get("severity") ?? null;
    collector.add(
      {
        path: file,
        line: decimalOrText(event.attributes.get("line")),
        column: decimalOrText(event.attributes.get("column")),
        message: event.attributes.get("message"),
        rule: event.attributes.get("source"),
        toolLevel: severity,
        fallback: (severity !== null ? LEVELS.get(severity) : undefined) ?? "warning",
      },
      where,
    );
  }
  return collector.outcome();
}
