import { member } from "./json-input.js";
import { MAX_FINDING_TEXT } from "./sanitise-output.js";

/** Reads the text of the messages of one run's results. */
export type SarifMessageReader = (message: unknown, rule: unknown) => string | undefined;

/**
 * The text of a result's SARIF `message` (§3.11), for the results of `run`: its `text`, or else
 * the string its `id` names,
 * looked up in the rule's `messageStrings` (§3.49.11) and then the driver's
 * `globalMessageStrings` (§3.19.22) as §3.11.7 orders, with `{n}` placeholders replaced by
 * `arguments[n]` and `{{`/`}}` read as literal braces (§3.11.5); a placeholder without a string
 * argument is kept as written. `undefined` when neither gives a string.
 *
 * A formatted message is cut to {@link MAX_FINDING_TEXT} characters ending in `…`, what a
 * finding shows anyway: one message string is shared by every result that names it, so each
 * result costs what its own arguments cost, not a copy of a long string (issue 11). Each message
 * string is read once per run.
 */
export function sarifMessageReader(run: unknown): SarifMessageReader {
  // Keyed by the message string itself: the results naming one share the same string.
  const compiled = new Map<string, readonly Piece[]>();
  return (message, rule) => {
    const text = member(message, "text");
    if (typeof text === "string") return text;
    const id = member(message, "id");
    if (typeof id !== "string") return undefined;
    const template =
      stringOf(member(rule, "messageStrings", id)) ?? stringOf(member(run, "tool", "driver", "globalMessageStrings", id));
    if (template === undefined) return undefined;
    let pieces = compiled.get(template);
    if (pieces === undefined) {
      pieces = compile(template);
      compiled.set(template, pieces);
    }
    const args = member(message, "arguments");
    return format(pieces, Array.isArray(args) ? args : []);
  };
}

// A multiformatMessageString (§3.12) has `text`; SARIF 2.0 drafts wrote the string itself.
function stringOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const text = member(value, "text");
  return typeof text === "string" ? text : undefined;
}

/** A template as literal text and placeholder indexes, in order. */
type Piece = string | { readonly index: number; readonly written: string };

function compile(text: string): readonly Piece[] {
  // Beyond what can be shown, the rest of a template is never read.
  const template = text.length > MAX_FINDING_TEXT + 1 ? text.slice(0, MAX_FINDING_TEXT + 1) : text;
  const pieces: Piece[] = [];
  let literal = "";
  for (let index = 0; index < template.length; ) {
    const char = template.charAt(index);
    if ((char === "{" || char === "}") && template.charAt(index + 1) === char) {
      literal += char;
      index += 2;
      continue;
    }
    const placeholder = char === "{" ? /^\{(\d{1,9})\}/.exec(template.slice(index, index + 12)) : null;
    if (placeholder === null) {
      literal += char;
      index += 1;
      continue;
    }
    pieces.push(literal, { index: Number(placeholder[1]), written: placeholder[0] });
    literal = "";
    index += placeholder[0].length;
  }
  pieces.push(literal);
  return pieces;
}

function format(pieces: readonly Piece[], args: readonly unknown[]): string {
  let out = "";
  for (const piece of pieces) {
    if (out.length > MAX_FINDING_TEXT) break;
    if (typeof piece === "string") {
      out += piece;
      continue;
    }
    const argument = args[piece.index];
    out += typeof argument !== "string" ? piece.written : argument.slice(0, MAX_FINDING_TEXT + 1);
  }
  return out.length > MAX_FINDING_TEXT ? `${out.slice(0, MAX_FINDING_TEXT - 1)}…` : out;
}
