import { member } from "./json-input.js";
import { cleanText, MAX_FINDING_TEXT } from "./sanitise-output.js";

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
 * A formatted message is cut to one character more than a finding shows
 * ({@link MAX_FINDING_TEXT}), unmarked: sanitising cuts it and adds the `…` after scrubbing, so a
 * secret cut short here still ends the text, where the scrubber redacts it (a `…` added here hid
 * it). One message string is shared by every result that names it, so each result costs what its
 * own arguments cost, not a copy of a long string. Each message
 * string is read, and its literal text cleaned (`cleanText`), once per run; each argument is
 * cleaned once per result. The message is still sanitised whole afterwards (secrets are scrubbed
 * from the final text), which for clean text costs one native scan: the pieces cleaned here are
 * what made a shared message string cost 5× plain output to sanitise (bench:parsers).
 */
export function sarifMessageReader(run: unknown): SarifMessageReader {
  // Keyed by the message string itself: the results naming one share the same string.
  const compiled = new Map<string, readonly Piece[]>();
  return (message, rule) => {
    const text = member(message, "text");
    if (typeof text === "string") return text;
    const id = member(message, "id");
    if (typeof id !== "string") return undefined;
    const template = stringOf(member(rule, "messageStrings", id)) ?? stringOf(member(run, "tool", "driver", "globalMessageStrings", id));
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
  for (let index = 0; index < template.length;) {
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
  // Cleaned once per run, not in every result that shows it (see `cleanText`).
  return pieces.map((piece) => (typeof piece === "string" ? cleanText(piece) : piece));
}

function format(pieces: readonly Piece[], args: readonly unknown[]): string {
  // Joined once, flat: `+=` over dozens of pieces leaves a rope that every later step walks.
  const parts: string[] = [];
  // Each argument cleaned once, however many placeholders repeat it.
  const cleaned = new Map<number, string>();
  let length = 0;
  for (const piece of pieces) {
    if (length > MAX_FINDING_TEXT) break;
    let text: string;
    if (typeof piece === "string") {
      text = piece;
    } else {
      const argument = args[piece.index];
      const known = cleaned.get(piece.index);
      text = typeof argument !== "string" ? piece.written : (known ?? cleanText(argument.slice(0, MAX_FINDING_TEXT + 1)));
      if (typeof argument === "string" && known === undefined) cleaned.set(piece.index, text);
    }
    parts.push(text);
    length += text.length;
  }
  const out = parts.join("");
  return out.length > MAX_FINDING_TEXT + 1 ? out.slice(0, MAX_FINDING_TEXT + 1) : out;
}
