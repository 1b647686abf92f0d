/**
 * Everything reviewbot publishes that came from a PR (paths, helper messages, rule ids, helper
 * problems) or from the model is attacker-controlled: a PR author chooses file names and can make
 * a linter or the model echo any text. Rendered as Markdown on GitHub it could ping people
 * (`@org/team`), load tracking images (`![](https://evil/pixel)`, `<img src>`), inject links or
 * HTML, break out of a table, hide text with bidirectional overrides (CVE-2021-42574, "Trojan
 * Source"), or have GitHub link it where it names an issue, a PR, a commit or a site (`#1`,
 * `GH-1`, `owner/repo#1`, a SHA, `user@sha`, a bare URL, `www.`), which cross-references our
 * comment from that issue and makes a stranger's link look like ours.
 */
import { stripControls } from "@reviewbot/core/strip-controls";

// A mention is `@` followed by a login or `org/team`; GitHub links it when `@` starts a word.
const MENTION = /@(?=[A-Za-z0-9])/g;
const ZERO_WIDTH_JOINER = "\u200D";
// Every ASCII punctuation character CommonMark lets a backslash escape, except those handled as
// HTML entities below (`&`, `<`, `>`, `"`), which GitHub's HTML sanitiser would otherwise parse.
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#+\-.!|~^=:$]/g;
const HTML_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
// What GitHub links by itself, each bounded or ending at a character the next cannot start with, so
// one scan is linear on any input. A backslash escape does not stop it: GitHub links references in
// the rendered text. Owners are at most 39 characters, repository names 100, SHAs 7 to 40 hex.
const URL_TAIL = String.raw`[^\s<>\x60|"'()[\]{}\\]+`;
const AUTOLINK = new RegExp(
  [
    String.raw`(?:https?|ftp)://${URL_TAIL}`,
    String.raw`www\.${URL_TAIL}`,
    String.raw`(?:[a-z0-9][a-z0-9-]{0,38}/[a-z0-9._-]{1,100})?#\d+`,
    String.raw`(?:[a-z0-9][a-z0-9-]{0,38}(?:/[a-z0-9._-]{1,100})?)?@[0-9a-f]{7,40}(?![a-z0-9])`,
    String.raw`\bGH-\d+`,
    String.raw`\b[0-9a-f]{7,40}\b`,
  ].join("|"),
  "gi",
);

const BACKTICKS = /`+/g;

/** A stretch of output: text still to escape, or a code span already written. */
interface Piece {
  readonly code: boolean;
  readonly text: string;
}

/** Removes control and bidi characters and breaks `@mentions` with a zero-width joiner. */
export function sanitisePlainText(untrusted: string): string {
  return stripControls(untrusted).replace(MENTION, `@${ZERO_WIDTH_JOINER}`);
}

/**
 * Makes untrusted text inert inside GitHub Markdown: every Markdown and HTML special character is
 * escaped, so no link, image, HTML tag, heading, table cell boundary or emphasis can be formed;
 * mentions are broken so nobody is notified. What GitHub would autolink (issue and PR references,
 * commit SHAs, bare URLs, `www.`) is put in a code span: GitHub links nothing in code, the visible
 * text is the same, and a reviewer copies exactly what was written (a zero-width space, as Renovate
 * inserts after `#`, would ride along into `git show`). A code span the text itself holds, on one
 * line, is kept as it is, since nothing in it renders. With `inline` (the default) newlines become
 * spaces, so the text stays inside one table cell or list item, and a code span holding `|` (which
 * would end the cell) is escaped as text instead.
 */
export function sanitiseMarkdown(untrusted: string, options: { readonly inline?: boolean } = {}): string {
  const inline = options.inline ?? true;
  const lines = stripControls(untrusted)
    .split("\n")
    .map((line) => render(codeSpansOf(line, inline).flatMap((piece) => (piece.code ? [piece] : autolinksOf(piece.text)))));
  const joined = lines.join(inline ? " " : "  \n");
  return inline ? joined.replace(/\t/g, " ") : joined;
}

/**
 * Untrusted text as one code span (a model name, an error code), for a place that shows it as
 * code: the fence is longer than any backtick run in it, newlines become spaces. Not for a table
 * cell: a `|` in it would still end the cell.
 */
export function sanitiseCodeSpan(untrusted: string): string {
  const text = stripControls(untrusted).replace(/\r?\n/g, " ");
  const fence = "`".repeat(longestBacktickRun(text) + 1);
  // CommonMark strips one space from each end when both have one: the padding keeps a leading or trailing backtick apart from the fence.
  const pad = text === "" || text.startsWith("`") || text.endsWith("`") || (text.startsWith(" ") && text.endsWith(" ")) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The length of the longest run of backticks in `text`: a fence around it must be longer. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * One line split into its code spans (CommonMark's: a backtick run closed by the next run of the
 * same length) and the text between them. Linear: each run length keeps a queue of where it occurs,
 * and a queue entry is passed once.
 */
function codeSpansOf(line: string, inline: boolean): Piece[] {
  const runs: { readonly start: number; readonly length: number }[] = [];
  for (let match = BACKTICKS.exec(line); match !== null; match = BACKTICKS.exec(line)) runs.push({ start: match.index, length: match[0].length });
  const byLength = new Map<number, { readonly at: number[]; next: number }>();
  runs.forEach((run, index) => {
    const queue = byLength.get(run.length) ?? { at: [], next: 0 };
    queue.at.push(index);
    byLength.set(run.length, queue);
  });
  const pieces: Piece[] = [];
  let textFrom = 0;
  for (let index = 0; index < runs.length; index++) {
    const opener = runs[index];
    const queue = byLength.get(opener?.length ?? 0);
    if (opener === undefined || queue === undefined) continue;
    while (queue.next < queue.at.length && (queue.at[queue.next] ?? 0) <= index) queue.next++;
    const closerIndex = queue.at[queue.next];
    const closer = closerIndex === undefined ? undefined : runs[closerIndex];
    if (closerIndex === undefined || closer === undefined) continue;
    const span = line.slice(opener.start, closer.start + closer.length);
    if (inline && span.includes("|")) continue;
    pieces.push({ code: false, text: line.slice(textFrom, opener.start) }, { code: true, text: span });
    textFrom = closer.start + closer.length;
    index = closerIndex;
  }
  pieces.push({ code: false, text: line.slice(textFrom) });
  return pieces;
}

/** Text split into what GitHub would autolink, as code spans, and the text around it. */
function autolinksOf(text: string): Piece[] {
  const pieces: Piece[] = [];
  let from = 0;
  // exec on the one global pattern: matchAll would copy the pattern for every piece of text.
  AUTOLINK.lastIndex = 0;
  for (let match = AUTOLINK.exec(text); match !== null; match = AUTOLINK.exec(text)) {
    pieces.push({ code: false, text: text.slice(from, match.index) }, { code: true, text: `\`${match[0]}\`` });
    from = match.index + match[0].length;
  }
  pieces.push({ code: false, text: text.slice(from) });
  return pieces;
}

/** The pieces as Markdown: text escaped, code as it is; two code spans that touch are kept apart by a zero-width joiner, or their fences would run together. */
function render(pieces: readonly Piece[]): string {
  let out = "";
  let lastWasCode = false;
  for (const piece of pieces) {
    if (piece.text === "") continue;
    if (piece.code) out += lastWasCode ? `${ZERO_WIDTH_JOINER}${piece.text}` : piece.text;
    else out += escapeText(piece.text);
    lastWasCode = piece.code;
  }
  return out;
}

function escapeText(text: string): string {
  return text
    .replace(MENTION, `@${ZERO_WIDTH_JOINER}`)
    .replace(/[&<>"]/g, (character) => HTML_ENTITIES[character] ?? character)
    .replace(MARKDOWN_PUNCTUATION, (character) => `\\${character}`);
}
