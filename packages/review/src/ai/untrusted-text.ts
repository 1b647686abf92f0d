import { randomBytes } from "node:crypto";
import { AppError } from "@reviewbot/core/errors";
import { sanitiseText } from "../findings/sanitise-output.js";

/** What a piece of PR-derived text is: the envelope's `kind`, so the model knows what it reads. */
export const UNTRUSTED_KINDS = [
  "title",
  "body",
  "commit-message",
  "diff",
  "file",
  "helper-output",
  "context-script-output",
  "fetched-page",
  "review-thread",
] as const;
export type UntrustedKind = (typeof UNTRUSTED_KINDS)[number];

export interface UntrustedText {
  readonly kind: UntrustedKind;
  /** What the text belongs to (a path, a helper's name): attacker-controlled too, so escaped and cut. */
  readonly label?: string;
  readonly text: string;
  /** The job's nonce from {@link newNonce}: only the closing tag carrying it ends the data. */
  readonly nonce: string;
  /** The most characters (UTF-16 units) of `text` shown; the rest is cut with a note. */
  readonly maxChars: number;
  /** Replaces secret values (a bound `SecretScrubber.scrub`); runs before the cut, so no half secret is left. */
  readonly scrub: (text: string) => string;
}

/** The longest label kept, in characters. */
export const MAX_LABEL_CHARS = 300;
const NONCE = /^[0-9a-f]{32}$/;

/** A fresh nonce for one job's envelopes: 128 random bits in hex, never derived from the PR. */
export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Wraps one PR-derived string for the model:
 *
 * ```
 * <untrusted-data kind="diff" label="src/a.ts" id="NONCE">
 * …text…
 * </untrusted-data id="NONCE">
 * [truncated: 4000 of 9000 characters shown]
 * ```
 *
 * The text is cleaned (escape sequences, controls, bidi controls and invisible characters
 * removed), scrubbed of secrets, any envelope tag inside it neutralised, and only then cut to
 * `maxChars`: serge cut after wrapping and so cut its own end marker off, leaving the rest of the
 * prompt inside the data. The note stands after the closing tag, where the PR cannot write, so the
 * data cannot fake or hide it. Linear in the text's length.
 */
export function wrapUntrusted(input: UntrustedText): string {
  if (!NONCE.test(input.nonce)) throw new AppError("INTERNAL", "an untrusted-data nonce must be 32 hex digits from newNonce()");
  const data = neutraliseTags(input.scrub(clean(input.text)));
  const shown = cut(data, Math.max(0, Math.floor(input.maxChars)));
  const label = input.label === undefined ? "" : ` label="${escapeAttribute(input.scrub(clean(input.label)), MAX_LABEL_CHARS)}"`;
  const envelope = `<untrusted-data kind="${input.kind}"${label} id="${input.nonce}">\n${shown}\n</untrusted-data id="${input.nonce}">`;
  return shown.length === data.length ? envelope : `${envelope}\n[truncated: ${shown.length} of ${data.length} characters shown]`;
}

// sanitiseText strips escape sequences, controls and bidi controls, mends lone surrogates (a
// provider may refuse a request holding one) and turns U+2028/9 into newlines; with no caps and
// no secrets it does nothing else (secrets are the caller's scrubber's).
const NO_SECRETS: readonly string[] = [];
const UNCAPPED = { maxBytes: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY, secrets: NO_SECRETS };
// Characters that render as nothing, so text can say to the model what a reviewer never sees:
// zero-width space, joiners, word joiner, BOM, invisible operators, soft hyphen, Mongolian vowel
// separator, variation selectors and the Unicode tag block ("ASCII smuggling": invisible
// characters that mirror ASCII and that models read as text).
// eslint-disable-next-line no-misleading-character-class -- matching lone variation selectors is the point
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufe00-\ufe0f\ufeff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

function clean(text: string): string {
  return sanitiseText(text, UNCAPPED).text.replace(INVISIBLE, "");
}

// `<untrusted-data`, `</untrusted-data`, `< / Untrusted_Data`…: the `<` becomes `‹`, so nothing in
// the data reads as an envelope tag, with or without the nonce. One character class per gap, so
// each `<` is followed at most to the end of its run of spaces and slashes: linear.
const TAG = /<(?=[\s/]*untrusted[\s_-]*data)/gi;

function neutraliseTags(text: string): string {
  return text.replace(TAG, "\u2039");
}

// The first `max` units of `text`, backing off one if the cut would split a surrogate pair.
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

function escapeAttribute(value: string, max: number): string {
  const short = value.length > max ? `${cut(value, max - 1)}…` : value;
  return short.replace(/[&"<>\n\t]/g, (char) => ATTRIBUTE_ESCAPES[char] ?? "");
}

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\t": "&#9;" };
