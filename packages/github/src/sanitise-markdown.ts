/**
 * Everything reviewbot publishes that came from a PR (paths, helper messages, rule ids, helper
 * problems) is attacker-controlled: a PR author chooses file names and can make a linter echo any
 * text. Rendered as Markdown on GitHub it could ping people (`@org/team`), load tracking images
 * (`![](https://evil/pixel)`, `<img src>`), inject links or HTML, break out of a table, or hide
 * text with bidirectional overrides (CVE-2021-42574, "Trojan Source").
 */
import { stripControls } from "@reviewbot/core/strip-controls";

// A mention is `@` followed by a login or `org/team`; GitHub links it when `@` starts a word.
const MENTION = /@(?=[A-Za-z0-9])/g;
const ZERO_WIDTH_JOINER = "\u200D";
// Every ASCII punctuation character CommonMark lets a backslash escape, except those handled as
// HTML entities below (`&`, `<`, `>`, `"`), which GitHub's HTML sanitiser would otherwise parse.
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#+\-.!|~^=:$]/g;
const HTML_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** Removes control and bidi characters and breaks `@mentions` with a zero-width joiner. */
export function sanitisePlainText(untrusted: string): string {
  return stripControls(untrusted).replace(MENTION, `@${ZERO_WIDTH_JOINER}`);
}

/**
 * Makes untrusted text inert inside GitHub Markdown: every Markdown and HTML special character is
 * escaped, so no link, image, HTML tag, heading, table cell boundary or emphasis can be formed;
 * mentions are broken so nobody is notified. With `inline` (the default) newlines become spaces,
 * so the text stays inside one table cell or list item.
 */
export function sanitiseMarkdown(untrusted: string, options: { readonly inline?: boolean } = {}): string {
  const inline = options.inline ?? true;
  const plain = sanitisePlainText(untrusted);
  const escaped = plain.replace(/[&<>"]/g, (character) => HTML_ENTITIES[character] ?? character).replace(MARKDOWN_PUNCTUATION, (character) => `\\${character}`);
  return inline ? escaped.replace(/\r?\n|\t/g, " ") : escaped.replace(/\n/g, "  \n");
}
