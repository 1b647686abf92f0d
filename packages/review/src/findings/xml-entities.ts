import { quote } from "@reviewbot/policy/config-error";

// The only named entities XML defines without a DTD (XML 1.0 §4.6).
const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["quot", '"'],
  ["apos", "'"],
]);
const REFERENCE = /&(#[0-9]{1,8}|#x[0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]*);|&/g;

/**
 * Decodes an attribute value: predefined entities, decimal and hex character references, and
 * whitespace normalised as XML 1.0 §3.3.3 requires (a literal tab or newline reads as a space;
 * `&#10;` stays a newline). An undefined entity, a bare `&`, or a reference to a character XML
 * forbids (NUL, a surrogate, beyond U+10FFFF) is a problem, not something to guess at.
 */
export function decodeXmlText(raw: string): string | { readonly problem: string } {
  const problems: string[] = [];
  const decoded = raw.replace(/[\t\n\r]/g, " ").replace(REFERENCE, (match, reference: string | undefined) => {
    const value = reference === undefined ? undefined : resolve(reference);
    if (value === undefined) problems.push(`has an undefined or malformed reference ${quote(match)}`);
    return value ?? "";
  });
  const problem = problems[0];
  return problem === undefined ? decoded : { problem };
}

function resolve(reference: string): string | undefined {
  if (!reference.startsWith("#")) return PREDEFINED.get(reference);
  const code = reference.startsWith("#x") ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
  return isXmlChar(code) ? String.fromCodePoint(code) : undefined;
}

// XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}
