import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { createHash } from "node:crypto";
import type { PublishedFinding } from "@reviewbot/contracts/published-report";

/**
 * A finding's identity across pushes: where it is (path, and side for the AI review's), what it
 * says (the helper and its rule — its message when it has none — or the AI finding's title,
 * case and spacing aside) and the text of its line (`anchor`), never the line's number, which
 * moves with every unrelated edit above it. A helper finding off the diff's hunks has no anchor
 * and no fingerprint: it can never be a review comment.
 */
export function fingerprintOf(finding: PublishedFinding | PlacedAiFinding): string | null {
  if ("side" in finding) return aiFingerprint(finding);
  return finding.anchor === null ? null : digest(["helper", finding.path, finding.helper, finding.rule ?? finding.message, finding.anchor]);
}

/** An AI finding's fingerprint: it always has an anchor (placement matched the line it quotes). */
export function aiFingerprint(finding: PlacedAiFinding): string {
  return digest(["ai", finding.path, finding.side, finding.title.replace(/\s+/g, " ").trim().toLowerCase(), finding.anchor]);
}

function digest(parts: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

/** The hidden marker of a review comment's fingerprint, so the comment can be matched to its finding once GitHub has numbered it. */
export function fingerprintMarker(fingerprint: string): string {
  return `<!-- reviewbot:finding:${fingerprint} -->`;
}

const MARKER = /<!-- reviewbot:finding:([0-9a-f]{32}) -->\s*$/;

/** The fingerprint named by the marker that ends a comment body (ours is put last), or null: a marker before the end is quoted text, such as a suggestion's. */
export function markedFingerprint(body: string): string | null {
  return MARKER.exec(body)?.[1] ?? null;
}
