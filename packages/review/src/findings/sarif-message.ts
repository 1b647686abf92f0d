import { member } from "./json-input.js";
import { MAX_FINDING_INPUT } from "./sanitise-output.js";

/**
 * The text of a result's SARIF `message` (§3.11): its `text`, or else the string its `id` names,
 * looked up in the rule's `messageStrings` (§3.49.11) and then the driver's
 * `globalMessageStrings` (§3.19.22) as §3.11.7 orders, with `{n}` placeholders replaced by
 * `arguments[n]` and `{{`/`}}` read as literal braces (§3.11.5). `undefined` when neither gives a
 * string. The result is cut to what sanitising reads, so a long message string shared by many
 * results, or an argument repeated by its placeholders, costs a bounded amount per result.
 */
export function sarifMessageText(message: unknown, rule: unknown, run: unknown): string | undefined {
  const text = member(message, "text");
  if (typeof text === "string") return text;
  const id = member(message, "id");
  if (typeof id !== "string") return undefined;
  const template =
    stringOf(member(rule, "messageStrings", id)) ?? stringOf(member(run, "tool", "driver", "globalMessageStrings", id));
  if (template === undefined) return undefined;
  const args = member(message, "arguments");
  return format(template, Array.isArray(args) ? args : []);
}

// A multiformatMessageString (§3.12) has `text`; SARIF 2.0 drafts wrote the string itself.
function stringOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const text = member(value, "text");
  return typeof text === "string" ? text : undefined;
}

function format(text: string, args: readonly unknown[]): string {
  const template = text.length > MAX_FINDING_INPUT ? text.slice(0, MAX_FINDING_INPUT) : text;
  let out = "";
  let index = 0;
  // The next brace of each kind at or after `index`, found again only once passed: one scan in all.
  let open = -1;
  let close = -1;
  while (index < template.length && out.length < MAX_FINDING_INPUT) {
    if (open !== Number.POSITIVE_INFINITY && open < index) open = positionOf(template, "{", index);
    if (close !== Number.POSITIVE_INFINITY && close < index) close = positionOf(template, "}", index);
    const next = Math.min(open, close);
    if (next === Number.POSITIVE_INFINITY) {
      out += template.slice(index);
      break;
    }
    out += template.slice(index, next);
    const char = template.charAt(next);
    const placeholder = char === "{" ? /^\{(\d{1,9})\}/.exec(template.slice(next, next + 12)) : null;
    const argument = placeholder === null ? undefined : args[Number(placeholder[1])];
    if (template.charAt(next + 1) === char) {
      out += char;
      index = next + 2;
    } else if (placeholder !== null && typeof argument === "string") {
      out += argument.length > MAX_FINDING_INPUT ? argument.slice(0, MAX_FINDING_INPUT) : argument;
      index = next + placeholder[0].length;
    } else {
      // A stray brace or a placeholder without its argument is kept as written.
      out += char;
      index = next + 1;
    }
  }
  return out.length > MAX_FINDING_INPUT ? out.slice(0, MAX_FINDING_INPUT) : out;
}

function positionOf(text: string, char: string, from: number): number {
  const position = text.indexOf(char, from);
  return position === -1 ? Number.POSITIVE_INFINITY : position;
}
