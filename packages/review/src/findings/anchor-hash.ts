import { createHash } from "node:crypto";

/** A line's text as anchors compare it: whitespace runs collapsed and ends trimmed (a model copies lines with other indentation). */
export function normaliseLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * What a published finding carries of the line it sits on: 16 hex digits of the SHA-256 of the
 * line's normalised text. The publisher fingerprints findings with it (a comment follows its
 * line's text across pushes, not its number), and a later review finds the line again by it.
 */
export function anchorHash(text: string): string {
  return createHash("sha256").update(normaliseLine(text)).digest("hex").slice(0, 16);
}
