import type { ShapedMessage } from "./read-message.js";

/** The location of a ` --> file:line:col` line. */
export interface ArrowLocation {
  readonly file: string;
  readonly line: string;
  readonly column: string | undefined;
}

/** How much of a header or note line is looked at for its level, code or lint name. */
const HEAD = 512;

// rustc and clippy: `error[E0425]: message`, `warning: message`, `note: …`, `help: …`.
const RUSTC_HEADER = /^(?<level>error|warning|note|help)(?:\[(?<code>[A-Za-z0-9_:-]{1,64})\])?: /;
// Ruff's full output: `F401 [*] message` (a rule code, the fix marker), `invalid-syntax: message`.
const RUFF_HEADER = /^(?:(?<code>[A-Z]{1,4}\d{1,4}) (?:\[\*\] )?|(?<name>[a-z][a-z0-9-]{0,63}): )/;
// rustc's note naming the lint that fired: `= note: `#[warn(clippy::len_zero)]` on by default`.
const LINT_NOTE = /^\s*= note: `#\[(?:warn|deny|forbid)\((?<lint>[A-Za-z0-9_:]{1,128})\)\]`/;

/**
 * Reads ` --> file:line:col`, the location line of rustc's, clippy's and Ruff's (`full`, its
 * default since 0.12) diagnostics, which put the message on the line before it. The line and
 * column are read from the end, so a path holding a colon stays whole. `null` for other lines.
 */
export function readArrowLocation(text: string): ArrowLocation | null {
  let start = 0;
  while (start < text.length && start < HEAD && text.charAt(start) === " ") start += 1;
  if (!text.startsWith("--> ", start)) return null;
  const last = text.lastIndexOf(":");
  const before = last > 0 ? text.lastIndexOf(":", last - 1) : -1;
  const lastNumber = text.slice(last + 1);
  if (last === -1 || !isNumber(lastNumber)) return null;
  const middle = before === -1 ? "" : text.slice(before + 1, last);
  // `file:line:col` as rustc and Ruff print it; `file:line` if a tool leaves the column out.
  if (before > start + 4 && isNumber(middle)) {
    return { file: text.slice(start + 4, before), line: middle, column: lastNumber };
  }
  return last > start + 4 ? { file: text.slice(start + 4, last), line: lastNumber, column: undefined } : null;
}

/** The level, rule and message of the header line above a ` --> ` location. */
export function readArrowHeader(header: string): ShapedMessage {
  const head = header.slice(0, HEAD);
  const rustc = RUSTC_HEADER.exec(head);
  if (rustc !== null) {
    return { text: header.slice(rustc[0].length), code: rustc.groups?.code ?? null, level: rustc.groups?.level ?? null };
  }
  const ruff = RUFF_HEADER.exec(head);
  if (ruff !== null) {
    return { text: header.slice(ruff[0].length), code: ruff.groups?.code ?? ruff.groups?.name ?? null, level: null };
  }
  return { text: header, code: null, level: null };
}

/** The lint a rustc `= note: #[warn(lint)]` line names, or `null`. */
export function readLintNote(text: string): string | null {
  return LINT_NOTE.exec(text.slice(0, HEAD))?.groups?.lint ?? null;
}

/**
 * Whether `text` is a line of a source snippet (`  |`, `12 |     code`): its code is the
 * file's, not the tool's, and may read like a location.
 */
export function isSnippetLine(text: string): boolean {
  let index = 0;
  while (index < text.length && index < HEAD && text.charAt(index) === " ") index += 1;
  while (index < text.length && index < HEAD && isDigitAt(text, index)) index += 1;
  while (index < text.length && index < HEAD && text.charAt(index) === " ") index += 1;
  return text.charAt(index) === "|" && index > 0;
}

function isNumber(text: string): boolean {
  if (text.length === 0 || text.length > 20) return false;
  for (let index = 0; index < text.length; index += 1) if (!isDigitAt(text, index)) return false;
  return true;
}

function isDigitAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0x30 && code <= 0x39;
}
