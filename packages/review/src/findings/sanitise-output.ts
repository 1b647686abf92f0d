import { MIN_SECRET_LENGTH, REDACTED, SecretScrubber } from "@reviewbot/core/scrubber";
import type { Finding } from "./finding.js";
import { flattenBreaks, stripAndFlatten, stripUnsafe } from "./text-scan.js";

/** Limits and secrets for one piece of helper output. */
export interface SanitiseOptions {
  readonly maxBytes: number;
  readonly maxLines: number;
  /** Secret values to scrub by value; values shorter than core's `MIN_SECRET_LENGTH` are ignored. */
  readonly secrets: readonly string[];
}

/** Sanitised text and whether the line or byte cap cut it. */
export interface SanitisedText {
  readonly text: string;
  readonly truncated: boolean;
}

/** The longest message or rule a finding keeps, in characters. */
export const MAX_FINDING_TEXT = 1000;
/**
 * How much of a message or rule is read before it is sanitised, in UTF-16 units: room for the
 * escape sequences that stripping removes, and a bound on the work one finding costs however long
 * the text (one SARIF message string can be shared by thousands of results).
 */
export const MAX_FINDING_INPUT = 2 * MAX_FINDING_TEXT;
// The shortest tail that is redacted when it begins a secret (output cut mid-secret upstream).
const MIN_PARTIAL_SECRET = 4;

const SURROGATES = /[\ud800-\udfff]/;

/**
 * Makes untrusted helper output safe to show, log, store or send on: invalid UTF-8 (or a lone
 * surrogate in a string) becomes U+FFFD; terminal escape sequences, control characters other
 * than newline and tab, and bidi controls are removed; Unicode line separators become newlines;
 * secret values are replaced by `[REDACTED]` (longest first, after stripping, so an escape
 * sequence inside a secret cannot hide it), as is a trailing start of a secret cut off by an
 * earlier cap; then the text is cut to `maxLines` lines and `maxBytes` UTF-8 bytes, never
 * inside a character.
 */
export function sanitiseText(input: Buffer | string, options: SanitiseOptions): SanitisedText {
  const decoded = typeof input === "string" ? input : new TextDecoder("utf-8").decode(input);
  const scrubbed = scrubSecrets(stripUnsafe(decoded), scrubbingOf(options.secrets));
  const lines = capLines(scrubbed, options.maxLines);
  const bytes = capBytes(lines, options.maxBytes);
  return { text: bytes, truncated: bytes !== scrubbed };
}

/**
 * `text` without what {@link sanitiseText} removes (escape sequences, controls, bidi controls;
 * lone surrogates become U+FFFD, line separators newlines) and with each run of whitespace holding
 * a newline or tab made one space: not scrubbed, cut or trimmed. For the pieces of a text that is
 * then sanitised whole — a SARIF message string's literal parts, once per run, and each result's
 * arguments — so that the whole, clean already, costs sanitising one native scan and the secret
 * search; the scrubber still sees every final text whole. Pieces cleaned apart may keep what a
 * sequence split across two of them would have removed (`ESC` in one, `[31m` in the next), never a
 * control character.
 */
export function cleanText(text: string): string {
  return stripAndFlatten(text);
}

/**
 * A finding whose message and rule are sanitised (see {@link sanitiseText}) and made single
 * line: a run of whitespace holding a newline or tab becomes one space, and each is cut to
 * {@link MAX_FINDING_TEXT} characters ending in `…` (only the first {@link MAX_FINDING_INPUT}
 * units are read). A rule left empty becomes `null`.
 */
export function sanitiseFinding(finding: Finding, options: Pick<SanitiseOptions, "secrets">): Finding {
  const rule = finding.rule === null ? "" : singleLine(finding.rule, options.secrets);
  return { ...finding, message: singleLine(finding.message, options.secrets), rule: rule === "" ? null : rule };
}

function singleLine(value: string, secrets: readonly string[]): string {
  const capped = value.length > MAX_FINDING_INPUT ? value.slice(0, MAX_FINDING_INPUT) : value;
  const scrubbing = scrubbingOf(secrets);
  // Stripped, scrubbed, then flattened, as sanitiseText and then flattenBreaks would. When no
  // secret holds whitespace, stripping and flattening in one pass before scrubbing comes to the
  // same: each secret lies inside a stretch without whitespace, which flattening leaves as it is.
  const flat = (scrubbing.blankFree ? scrubSecrets(stripAndFlatten(capped), scrubbing) : flattenBreaks(scrubSecrets(stripUnsafe(capped), scrubbing))).trim();
  // Cut by code points, so no surrogate pair is split; no text has more code points than units.
  if (flat.length <= MAX_FINDING_TEXT) return flat;
  if (!SURROGATES.test(flat)) return `${flat.slice(0, MAX_FINDING_TEXT - 1)}…`;
  const cut = codePointOffset(flat, MAX_FINDING_TEXT - 1);
  return codePointOffset(flat, MAX_FINDING_TEXT, cut, MAX_FINDING_TEXT - 1) === flat.length ? flat : `${flat.slice(0, cut)}…`;
}

// The offset in UTF-16 units after `count` code points (at most the text's length), counting on
// from `offset`, where `counted` code points end.
function codePointOffset(text: string, count: number, offset = 0, counted = 0): number {
  let index = offset;
  for (let seen = counted; seen < count && index < text.length; seen += 1) {
    const unit = text.charCodeAt(index);
    index += unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

interface Scrubbing {
  readonly scrubber: SecretScrubber;
  /** The secrets the scrubber scrubs (long enough). */
  readonly scrubbed: readonly string[];
  /** Their first MIN_SECRET_LENGTH characters: a text holding none of them holds no secret. */
  readonly prefixes: readonly string[];
  /** Whether none of them holds whitespace. */
  readonly blankFree: boolean;
}

// One scrubber per list of secrets: a review sanitises every finding with the same list.
const scrubbers = new WeakMap<readonly string[], Scrubbing>();

function scrubbingOf(secrets: readonly string[]): Scrubbing {
  let entry = scrubbers.get(secrets);
  if (entry === undefined) {
    const scrubber = new SecretScrubber();
    for (const secret of secrets) scrubber.register(secret);
    const scrubbed = secrets.filter((value) => scrubber.scrub(value) !== value);
    const prefixes = [...new Set(scrubbed.map((secret) => secret.slice(0, MIN_SECRET_LENGTH)))];
    entry = { scrubber, scrubbed, prefixes, blankFree: !scrubbed.some((secret) => /\s/.test(secret)) };
    scrubbers.set(secrets, entry);
  }
  return entry;
}

function scrubSecrets(text: string, entry: Scrubbing): string {
  // A native search per secret first: most text holds no secret, and the scrubber's walk over
  // every position is the dearest step of sanitising a finding.
  const prefixes = entry.prefixes;
  const scrubbed = prefixes.some((prefix) => text.includes(prefix)) ? entry.scrubber.scrub(text) : text;
  // Output capped while it streamed may end in the first part of a secret: redact that tail too.
  const last = scrubbed.charCodeAt(scrubbed.length - 1);
  let tail = 0;
  for (const secret of entry.scrubbed) {
    for (let length = Math.min(secret.length - 1, scrubbed.length); length > tail; length -= 1) {
      // The last character first: most lengths are ruled out without comparing the whole prefix.
      if (length >= MIN_PARTIAL_SECRET && secret.charCodeAt(length - 1) === last && scrubbed.endsWith(secret.slice(0, length))) {
        tail = length;
      }
    }
  }
  return tail === 0 ? scrubbed : `${scrubbed.slice(0, -tail)}${REDACTED}`;
}

function capLines(text: string, maxLines: number): string {
  if (maxLines === Number.POSITIVE_INFINITY) return text;
  let end = -1;
  for (let line = 0; line < maxLines; line += 1) {
    end = text.indexOf("\n", end + 1);
    if (end === -1) return text;
  }
  return text.slice(0, end + 1);
}

function capBytes(text: string, maxBytes: number): string {
  // No UTF-16 unit takes more than 3 bytes of UTF-8 (a pair of 2 takes 4): no need to encode.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, Math.floor(maxBytes));
  // Back off to the lead byte of a character the cut would split (continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString("utf8");
}
