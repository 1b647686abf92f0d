import { createFindingCollector, decimalOrText, type FindingCollector } from "./finding-collector.js";
import type { Severity } from "@reviewbot/contracts/severity";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { stripByteOrderMark } from "./json-input.js";
import { isSnippetLine, readArrowHeader, readArrowLocation, readLintNote, type ArrowLocation } from "./read-arrow-diagnostic.js";
import { readLocation, type LineLocation } from "./read-location.js";
import { readMessage, type ShapedMessage } from "./read-message.js";

const FALLBACKS: Readonly<Record<string, Severity>> = {
  error: "error",
  fatal: "error",
  warning: "warning",
  note: "notice",
  help: "notice",
  convention: "notice",
  refactor: "notice",
  info: "notice",
};

/** A ` --> ` diagnostic read up to its location; its rule may still come from a later note. */
interface OpenDiagnostic {
  readonly location: ArrowLocation;
  readonly message: ShapedMessage;
  /** The 1-based line of its location, for problems. */
  readonly line: number;
  lint: string | null;
}

/**
 * Parses `file:line[:col]: message` lines (reviewdog's `%f:%l:%c: %m`), recognising the rule and
 * level where the message has a known shape (see `readMessage`: flake8, Ruff's concise output,
 * pylint, gcc, mypy) and tsc's `file(line,col): error TSnnnn: message`. Also reads the
 * two-line form of rustc, clippy and Ruff's default `full` output: a header (`error[E0425]:
 * message`, `F401 [*] message`) above ` --> file:line:col`, with the lint named by a later
 * `= note: #[warn(lint)]` as the rule; the source snippets under it are skipped, and so are the
 * locations of sub-diagnostics (`note: same as this`) inside one diagnostic. Levels map as
 * error/fatal → error, warning → warning, note/help/convention/refactor/info → notice; a line
 * with no level is a warning. Other lines (headers, scores, blank lines) are skipped as
 * reviewdog does; only output where no line matched at all is noted as a problem. Columns are
 * taken as printed: pylint's are 0-based, so its whole-line column 0 reads as "no column".
 */
export function parseErrorformat(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  const lines = stripByteOrderMark(output).split("\n");
  let unmatched = 0;
  let open: OpenDiagnostic | null = null;
  let arrow = readArrowLocation(withoutCr(lines[0] ?? ""));
  for (let index = 0; index < lines.length; index += 1) {
    const line = withoutCr(lines[index] ?? "");
    // The next line's arrow is read once, here, and is the current one on the next turn.
    const current = arrow;
    arrow = index + 1 < lines.length ? readArrowLocation(withoutCr(lines[index + 1] ?? "")) : null;
    if (current !== null) {
      // A second location inside one diagnostic belongs to a sub-diagnostic (clippy's `note: same as this`).
      open ??= { location: current, message: readArrowHeader(withoutCr(lines[index - 1] ?? "")), line: index + 1, lint: null };
    } else if (line.trim() === "") {
      if (open !== null) addArrowDiagnostic(collector, open);
      open = null;
    } else if (open !== null) {
      open.lint ??= readLintNote(line);
    } else {
      // A header above a ` --> ` line is read with it; a snippet's code is not the tool's.
      const location = arrow === null && !isSnippetLine(line) ? readLocation(line) : null;
      if (location === null) {
        unmatched += 1;
        continue;
      }
      const message = readMessage(location.rest);
      add(collector, location, message, { code: location.code ?? message.code, level: location.level ?? message.level }, index + 1);
    }
  }
  if (open !== null) addArrowDiagnostic(collector, open);
  const outcome = collector.outcome();
  if (outcome.findings.length === 0 && unmatched > 0) {
    return { findings: [], problems: [...outcome.problems, `no line of the output has the form file:line[:col]: message (${unmatched} lines)`] };
  }
  return outcome;
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function addArrowDiagnostic(collector: FindingCollector, open: OpenDiagnostic): void {
  add(collector, open.location, open.message, { code: open.message.code ?? open.lint, level: open.message.level }, open.line);
}

function add(
  collector: FindingCollector,
  location: Pick<LineLocation, "file" | "line" | "column">,
  message: ShapedMessage,
  { code, level }: { readonly code: string | null; readonly level: string | null },
  line: number,
): void {
  collector.add(
    {
      path: location.file,
      line: decimalOrText(location.line),
      column: decimalOrText(location.column),
      message: message.text,
      rule: code,
      toolLevel: level,
      fallback: (level !== null ? FALLBACKS[level] : undefined) ?? "warning",
    },
    `line ${line}`,
  );
}
