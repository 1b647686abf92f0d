import { createFindingCollector, decimalOrText } from "./finding-collector.js";
import type { FindingSeverity, ParseContext, ParseOutcome } from "./finding.js";

// `file:line[:col]: message`, the shape of Vim's and reviewdog's `%f:%l:%c: %m`. The file name
// holds no colon, so a message containing `12:3:` cannot move the split.
const LOCATED = /^(?<file>[^:]+):(?<line>\d+)(?::(?<column>\d+))?:\s*(?<rest>.*)$/;
// tsc's own form, `file(line,col): error TS2322: message` (tsc --pretty false).
const TSC = /^(?<file>[^(]+)\((?<line>\d+),(?<column>\d+)\): (?<level>error|warning) (?<code>TS\d+): (?<rest>.*)$/;

interface MessageShape {
  readonly pattern: RegExp;
  /** The tool's level name for the matched groups, or null when the shape carries none. */
  readonly level: (groups: Readonly<Record<string, string>>) => string | null;
  /** Whether the message may end in mypy's `  [code]`. */
  readonly trailingCode?: boolean;
}

// Pylint's message categories (https://pylint.readthedocs.io/en/stable/user_guide/messages/).
const PYLINT_CATEGORIES: Readonly<Record<string, string>> = {
  C: "convention", R: "refactor", W: "warning", E: "error", F: "fatal", I: "info",
};

// Tried in order on the text after `file:line[:col]:`; the first match wins.
const SHAPES: readonly MessageShape[] = [
  // pylint --output-format=text: `C0114: Missing module docstring (missing-module-docstring)`
  { pattern: /^(?<code>[CRWEFI]\d{4}): (?<message>.+)$/, level: (g) => PYLINT_CATEGORIES[g.code?.[0] ?? ""] ?? null },
  // pylint --output-format=parseable: `[C0114(missing-module-docstring), ] Missing module docstring`
  { pattern: /^\[(?<code>[CRWEFI]\d{4})\([^)]*\), [^\]]*\] (?<message>.+)$/, level: (g) => PYLINT_CATEGORIES[g.code?.[0] ?? ""] ?? null },
  // gcc, clang, mypy: `error: message  [code]`, `warning: message`, `note: message`
  { pattern: /^(?<level>error|warning|note): (?<message>.+)$/, level: (g) => g.level ?? null, trailingCode: true },
  // flake8 and its plugins, pycodestyle, ruff's concise output: `E501 line too long (88 > 79 characters)`
  { pattern: /^(?<code>[A-Z]{1,4}\d{1,4}) (?<message>.+)$/, level: () => null },
];

const FALLBACKS: Readonly<Record<string, FindingSeverity>> = {
  error: "error", fatal: "error", warning: "warning", note: "notice",
  convention: "notice", refactor: "notice", info: "notice",
};

/**
 * Parses `file:line[:col]: message` lines (reviewdog's `%f:%l:%c: %m`), recognising the rule and
 * level where the message has a known shape: flake8's `CODE message`, pylint's `CODE: message`
 * and parseable `[CODE(symbol), obj] message`, `error:`/`warning:`/`note:` prefixes (gcc, mypy
 * with its `[code]` suffix), and tsc's `file(line,col): error TSnnnn: message`. Levels map as
 * error/fatal → error, warning → warning, note/convention/refactor/info → notice; a line with
 * no level is a warning. Other lines (headers, scores, blank lines) are skipped as reviewdog
 * does; only output where no line matched at all is noted as a problem. Columns are taken as
 * printed: pylint's are 0-based, so its whole-line column 0 reads as "no column".
 */
export function parseErrorformat(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  let unmatched = 0;
  output.split("\n").forEach((rawLine, index) => {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    const groups = (TSC.exec(line) ?? LOCATED.exec(line))?.groups;
    if (groups === undefined) {
      if (line.trim() !== "") unmatched += 1;
      return;
    }
    const message = readMessage(groups.rest ?? "");
    const level = groups.level ?? message.level;
    collector.add(
      {
        path: groups.file,
        line: decimalOrText(groups.line),
        column: decimalOrText(groups.column),
        message: message.text,
        rule: groups.code ?? message.code,
        toolLevel: level,
        fallback: (level !== null ? FALLBACKS[level] : undefined) ?? "warning",
      },
      `line ${index + 1}`,
    );
  });
  const outcome = collector.outcome();
  if (outcome.findings.length === 0 && unmatched > 0) {
    return { findings: [], problems: [...outcome.problems, `no line of the output has the form file:line[:col]: message (${unmatched} lines)`] };
  }
  return outcome;
}

function readMessage(rest: string): { text: string; code: string | null; level: string | null } {
  for (const shape of SHAPES) {
    const groups = shape.pattern.exec(rest)?.groups;
    if (groups === undefined) continue;
    const text = groups.message ?? rest;
    const split = shape.trailingCode === true ? splitTrailingCode(text) : null;
    return { text: split?.text ?? text, code: groups.code ?? split?.code ?? null, level: shape.level(groups) };
  }
  return { text: rest, code: null, level: null };
}

// mypy's `message  [code]` suffix, found by index rather than by a regex: `.+?\s+\[…\]$`
// backtracks quadratically over a long run of spaces in untrusted output.
function splitTrailingCode(text: string): { text: string; code: string } | null {
  if (!text.endsWith("]")) return null;
  const open = text.lastIndexOf("[");
  const code = text.slice(open + 1, -1);
  if (open < 1 || !/\s/.test(text.charAt(open - 1)) || !/^[a-z][a-z0-9-]*$/.test(code)) return null;
  return { text: text.slice(0, open).trimEnd(), code };
}
