/** A message as read from text output: its text, and the rule and level its shape carries. */
export interface ShapedMessage {
  readonly text: string;
  readonly code: string | null;
  readonly level: string | null;
}

/** How much of a message its shape is looked for in: codes and levels are at its start. */
const HEAD = 512;
/** The longest rule code taken from a trailing `[code]`. */
const MAX_TRAILING_CODE = 64;

// Pylint's message categories (https://pylint.readthedocs.io/en/stable/user_guide/messages/).
const PYLINT_CATEGORIES: Readonly<Record<string, string>> = {
  C: "convention",
  R: "refactor",
  W: "warning",
  E: "error",
  F: "fatal",
  I: "info",
};

interface Shape {
  /** Matched against the head of the message only; group `message` must end where the head ends. */
  readonly pattern: RegExp;
  readonly level: (groups: Readonly<Record<string, string | undefined>>) => string | null;
  /** Whether the message may end in mypy's `  [code]`. */
  readonly trailingCode?: boolean;
}

const pylintLevel = (groups: Readonly<Record<string, string | undefined>>) => PYLINT_CATEGORIES[groups.code?.[0] ?? ""] ?? null;

// Tried in order on the start of the text after `file:line[:col]:`; the first match wins. Each
// pattern reads a bounded prefix and ends in a sticky position, so none can backtrack over the
// message itself.
const SHAPES: readonly Shape[] = [
  // pylint --output-format=text: `C0114: Missing module docstring (missing-module-docstring)`
  { pattern: /^(?<code>[CRWEFI]\d{4}): /, level: pylintLevel },
  // pylint --output-format=parseable: `[C0114(missing-module-docstring), ] Missing module docstring`
  { pattern: /^\[(?<code>[CRWEFI]\d{4})\([^)\]]{0,200}\), [^\]]{0,200}\] /, level: pylintLevel },
  // gcc, clang, mypy: `error: message  [code]`, `warning: message`, `note: message`
  { pattern: /^(?<level>error|warning|note): /, level: (groups) => groups.level ?? null, trailingCode: true },
  // flake8 and its plugins, pycodestyle, ruff's concise output: `E501 line too long`, `F401 [*] …`
  { pattern: /^(?<code>[A-Z]{1,4}\d{1,4}) (?:\[\*\] )?/, level: () => null },
];

/**
 * Recognises the rule and level at the start of a message printed after `file:line[:col]:`:
 * pylint's `CODE: message` and parseable `[CODE(symbol), obj] message`, `error:`/`warning:`/
 * `note:` prefixes (gcc, mypy with its trailing `[code]`), and flake8's and Ruff's `CODE message`
 * (Ruff's `[*]` fix marker dropped). Anything else is the message as it stands.
 */
export function readMessage(rest: string): ShapedMessage {
  const head = rest.slice(0, HEAD);
  for (const shape of SHAPES) {
    const match = shape.pattern.exec(head);
    if (match === null) continue;
    const groups = match.groups ?? {};
    const text = rest.slice(match[0].length);
    if (text.trim() === "") continue;
    const split = shape.trailingCode === true ? splitTrailingCode(text) : null;
    return { text: split?.text ?? text, code: groups.code ?? split?.code ?? null, level: shape.level(groups) };
  }
  return { text: rest, code: null, level: null };
}

// mypy's `message  [code]` suffix, found by index rather than by a regex: `.+?\s+\[…\]$`
// backtracks quadratically over a long run of spaces in untrusted output.
function splitTrailingCode(text: string): { text: string; code: string } | null {
  if (!text.endsWith("]")) return null;
  const open = text.lastIndexOf("[", text.length - 1);
  if (open < 1 || text.length - open - 2 > MAX_TRAILING_CODE || !/\s/.test(text.charAt(open - 1))) return null;
  const code = text.slice(open + 1, -1);
  if (!/^[a-z][a-z0-9-]*$/.test(code)) return null;
  return { text: text.slice(0, open).trimEnd(), code };
}
