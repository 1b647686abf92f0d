/** Where a line of text output says a finding is, and the text after the location. */
export interface LineLocation {
  readonly file: string;
  readonly line: string;
  readonly column: string | undefined;
  /** The rest of the line (the message), after the location and its separator. */
  readonly rest: string;
  /** tsc's level and code (`error TS2322`), read from its own form only. */
  readonly level?: string;
  readonly code?: string;
}

/** The most digits a line or column is read with; longer runs are left for the collector to refuse. */
const MAX_DIGITS = 20;

/**
 * Reads `file:line[:col]: rest` (Vim's and reviewdog's `%f:%l:%c: %m`; the file name holds no
 * colon, so `12:3:` inside a message cannot move the split) or tsc's `file(line,col): error
 * TSnnnn: rest`. A scanner rather than a regex: each character is looked at a bounded number of
 * times, so hostile lines (long runs of spaces, digits or colons) cost what their length costs
 * (`:\s*(?<rest>.*)$` took 3.9 s on 64k characters). Returns `null` for other lines.
 */
export function readLocation(text: string): LineLocation | null {
  return readTscLocation(text) ?? readColonLocation(text);
}

function readColonLocation(text: string): LineLocation | null {
  const colon = text.indexOf(":");
  if (colon < 1) return null;
  const line = digitsAt(text, colon + 1);
  if (line === null || text.charAt(line.end) !== ":") return null;
  let end = line.end;
  let column: string | undefined;
  const second = digitsAt(text, end + 1);
  if (second !== null && text.charAt(second.end) === ":") {
    column = second.digits;
    end = second.end;
  }
  return { file: text.slice(0, colon), line: line.digits, column, rest: skipSpaces(text, end + 1) };
}

const TSC_LEVELS = ["error", "warning"] as const;

function readTscLocation(text: string): LineLocation | null {
  const open = text.indexOf("(");
  if (open < 1) return null;
  const line = digitsAt(text, open + 1);
  if (line === null || text.charAt(line.end) !== ",") return null;
  const column = digitsAt(text, line.end + 1);
  if (column === null || !text.startsWith("): ", column.end)) return null;
  const after = column.end + 3;
  const level = TSC_LEVELS.find((name) => text.startsWith(`${name} TS`, after));
  if (level === undefined) return null;
  const code = digitsAt(text, after + level.length + 3);
  if (code === null || !text.startsWith(": ", code.end)) return null;
  return {
    file: text.slice(0, open),
    line: line.digits,
    column: column.digits,
    rest: text.slice(code.end + 2),
    level,
    code: `TS${code.digits}`,
  };
}

/** The run of ASCII digits starting at `from` (at least one, at most {@link MAX_DIGITS}). */
function digitsAt(text: string, from: number): { digits: string; end: number } | null {
  let end = from;
  while (end < text.length && end - from <= MAX_DIGITS && isDigit(text.charCodeAt(end))) end += 1;
  return end === from || end - from > MAX_DIGITS ? null : { digits: text.slice(from, end), end };
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** `text` from `from` on, without the whitespace that starts it. */
export function skipSpaces(text: string, from: number): string {
  let start = from;
  while (start < text.length && /\s/.test(text.charAt(start))) start += 1;
  return text.slice(start);
}
