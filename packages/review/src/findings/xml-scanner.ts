import { quote } from "@reviewbot/policy/config-error";
import { decodeXmlText } from "./xml-entities.js";

/** A start tag (with its attributes, entities decoded) or an end tag, in document order. */
export type XmlEvent =
  { readonly type: "open"; readonly name: string; readonly attributes: ReadonlyMap<string, string> } | { readonly type: "close"; readonly name: string };

/** The tags read, and the reason reading stopped early (`null` when the document was well formed). */
export interface XmlScan {
  readonly events: readonly XmlEvent[];
  readonly problem: string | null;
}

/** Deeper nesting than this is not a report any linter writes. */
export const MAX_XML_DEPTH = 64;

const NAME = /[A-Za-z_][-A-Za-z0-9_.:]*/y;
const ATTRIBUTE = /\s+([A-Za-z_][-A-Za-z0-9_.:]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_END = /\s*(\/?)>/y;
const CLOSE_TAG = /<\/([A-Za-z_][-A-Za-z0-9_.:]*)\s*>/y;
// Markup that is skipped whole: the XML declaration and processing instructions, comments, CDATA.
const SKIPPED: readonly (readonly [string, string])[] = [
  ["<?", "?>"],
  ["<!--", "-->"],
  ["<![CDATA[", "]]>"],
];

/**
 * Reads the tags of the small XML subset linters write (elements, attributes, the five
 * predefined entities and character references, comments, the XML declaration), stopping at
 * the first malformation as XML requires. A DOCTYPE (or any other `<!` declaration) is refused:
 * no entity is ever defined or expanded, so neither XXE nor "billion laughs" expansion can occur.
 * Text content is ignored, as checkstyle reports carry everything in attributes.
 */
export function scanXml(text: string): XmlScan {
  const events: XmlEvent[] = [];
  const open: string[] = [];
  const stop = (problem: string): XmlScan => ({ events, problem });
  let position = 0;
  for (;;) {
    const start = text.indexOf("<", position);
    if (start === -1) break;
    const skipped = SKIPPED.find(([opener]) => text.startsWith(opener, start));
    if (skipped !== undefined) {
      const end = text.indexOf(skipped[1], start + skipped[0].length);
      if (end === -1) return stop(`unterminated ${quote(skipped[0])} at offset ${start}`);
      position = end + skipped[1].length;
      continue;
    }
    if (text.startsWith("<!", start)) return stop(`refused a DOCTYPE or other declaration at offset ${start}`);
    CLOSE_TAG.lastIndex = start;
    const close = CLOSE_TAG.exec(text);
    if (close !== null) {
      const name = close[1] ?? "";
      if (open.pop() !== name) return stop(`unexpected </${name}> at offset ${start}`);
      events.push({ type: "close", name });
      position = CLOSE_TAG.lastIndex;
      continue;
    }
    const tag = readStartTag(text, start + 1);
    if (typeof tag === "string") return stop(`${tag} at offset ${start}`);
    events.push({ type: "open", name: tag.name, attributes: tag.attributes });
    if (tag.selfClosing) events.push({ type: "close", name: tag.name });
    else if (open.push(tag.name) > MAX_XML_DEPTH) return stop(`elements nest deeper than ${MAX_XML_DEPTH}`);
    position = tag.end;
  }
  if (open.length > 0) return stop(`the document ends inside <${open.at(-1) ?? ""}> (truncated?)`);
  if (events.length === 0) return stop("no XML element found");
  return { events, problem: null };
}

interface StartTag {
  readonly name: string;
  readonly attributes: Map<string, string>;
  readonly selfClosing: boolean;
  readonly end: number;
}

function readStartTag(text: string, from: number): StartTag | string {
  NAME.lastIndex = from;
  const name = NAME.exec(text)?.[0];
  if (name === undefined) return "malformed tag";
  const attributes = new Map<string, string>();
  let position = NAME.lastIndex;
  for (;;) {
    ATTRIBUTE.lastIndex = position;
    const attribute = ATTRIBUTE.exec(text);
    if (attribute === null) break;
    const key = attribute[1] ?? "";
    if (attributes.has(key)) return `duplicate attribute ${quote(key)}`;
    const value = decodeXmlText(attribute[2] ?? attribute[3] ?? "");
    if (typeof value !== "string") return `attribute ${quote(key)} ${value.problem}`;
    attributes.set(key, value);
    position = ATTRIBUTE.lastIndex;
  }
  TAG_END.lastIndex = position;
  const end = TAG_END.exec(text);
  if (end === null) return `malformed or unterminated <${name}>`;
  return { name, attributes, selfClosing: end[1] === "/", end: TAG_END.lastIndex };
}
