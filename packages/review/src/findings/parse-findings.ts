import type { OutputFormat } from "@reviewbot/policy/helper-spec";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { parseCheckstyle } from "./parse-checkstyle.js";
import { parseErrorformat } from "./parse-errorformat.js";
import { parseEslintJson } from "./parse-eslint-json.js";
import { parseRdjson, parseRdjsonl } from "./parse-rdjson.js";
import { parseRuffJson } from "./parse-ruff-json.js";
import { parseSarif } from "./parse-sarif.js";

const PARSERS: Readonly<Record<OutputFormat, (output: string, context: ParseContext) => ParseOutcome>> = {
  sarif: parseSarif,
  checkstyle: parseCheckstyle,
  rdjson: parseRdjson,
  rdjsonl: parseRdjsonl,
  "eslint-json": parseEslintJson,
  "ruff-json": parseRuffJson,
  errorformat: parseErrorformat,
  // Plain text carries no findings; the caller keeps the (sanitised) output itself.
  text: () => ({ findings: [], problems: [] }),
};

/**
 * Parses a helper's output in its declared `format`. Never throws on the output: malformed
 * output yields `problems`, with whatever findings could still be read. Paths are as the tool
 * printed them; map them with `mapFindingPath` and sanitise with `sanitiseFinding` afterwards.
 */
export function parseFindings(format: OutputFormat, output: string, context: ParseContext): ParseOutcome {
  return PARSERS[format](output, context);
}
