import { createHash } from "node:crypto";
import { z } from "zod";
import { CommitSha } from "./commit-sha.js";

/**
 * What the api's model broker saw of one job, so that nothing a worker writes steers a later job
 * of another worker unless the broker can vouch for it: the pieces of diff the model was shown
 * (each hunk of each `diff` envelope of a user message, by the file's label) and the findings the
 * model submitted through `submit_review`. The broker and the worker digest with these same
 * functions, the broker from what it forwarded, the worker from the patches it computes itself.
 */

/** A sha256 hex digest of one diff piece or finding. */
export const WitnessDigest = z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 hex digest");

/** The most diff pieces the broker records for one job; past it the job's witness is void (the next review is whole). */
export const MAX_WITNESSED_DIFFS = 10_000;
/** The most submitted findings the broker records for one job. */
export const MAX_WITNESSED_FINDINGS = 2000;
/** The most findings read from one `submit_review` call (the worker accepts 50). */
const MAX_FINDINGS_PER_CALL = 50;
/** The most reviews a chain of incremental reviews keeps, back to the whole review it started from. */
export const MAX_WITNESS_LINKS = 8;

/**
 * One completed AI review as the broker witnessed it: the head it reviewed, the head it reviewed
 * from (`since`, null for the whole PR; only ever the one the api offered it), the base its PR
 * diff was computed against, and the digests of the diff pieces the model was shown.
 */
export const WitnessLink = z.strictObject({
  headSha: CommitSha,
  since: CommitSha.nullable(),
  baseSha: CommitSha,
  diffs: z.array(WitnessDigest).max(MAX_WITNESSED_DIFFS),
});
export type WitnessLink = z.infer<typeof WitnessLink>;

/** A chain of witnessed reviews, oldest first: the first reviewed the whole PR, each next one from the head of the one before. */
export const WitnessChain = z.array(WitnessLink).max(MAX_WITNESS_LINKS);
export type WitnessChain = z.infer<typeof WitnessChain>;

// `<untrusted-data kind="diff" label="…" id="NONCE">\n…\n</untrusted-data id="NONCE">`, as
// wrapUntrusted writes it (packages/review/src/ai/untrusted-text.ts): the label is escaped (no
// `"` inside), and the data cannot hold an envelope tag, so the first closing tag with the
// opening's nonce ends it.
const DIFF_OPENING = /<untrusted-data kind="diff" label="([^"]*)" id="([0-9a-f]{32})">\n/g;

/**
 * The digest of every hunk of every diff envelope in `text`, by the envelope's label (a file's
 * path): digests of hunks, not of envelopes, so that a file split over chunks at hunk boundaries
 * digests the same as the file shown whole. A hunk runs from its `@@ ` line to the next one; the
 * file's header lines are left out. Linear in the text's length.
 */
export function diffPieceDigests(text: string): string[] {
  const digests: string[] = [];
  for (const opening of text.matchAll(DIFF_OPENING)) {
    const [, label = "", nonce = ""] = opening;
    const start = opening.index + opening[0].length;
    const end = text.indexOf(`\n</untrusted-data id="${nonce}">`, start);
    if (end === -1) continue;
    for (const hunk of hunks(text.slice(start, end))) digests.push(digest(["diff", label, hunk]));
  }
  return digests;
}

function hunks(patch: string): string[] {
  const found: string[] = [];
  const at = patch.indexOf("\n@@ ");
  let start = patch.startsWith("@@ ") ? 0 : at === -1 ? -1 : at + 1;
  while (start !== -1) {
    const next = patch.indexOf("\n@@ ", start);
    found.push(patch.slice(start, next === -1 ? patch.length : next + 1));
    start = next === -1 ? -1 : next + 1;
  }
  return found;
}

/** The texts of a finding that the digest covers: where it is (by file) and what it says. */
export interface FindingTexts {
  readonly path: string;
  readonly title: string;
  readonly body: string;
  readonly suggestion?: string | null | undefined;
}

/** The digest of a finding's path and texts (not its line: a carried finding moves). */
export function findingDigest(finding: FindingTexts): string {
  return digest(["finding", finding.path, finding.title, finding.body, finding.suggestion ?? ""]);
}

/**
 * The digests of the findings in one `submit_review` call's arguments (the JSON text the model
 * wrote), read leniently: what is not a finding with string texts is skipped, as the worker would
 * refuse it.
 */
export function submittedFindingDigests(argumentsJson: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return [];
  }
  const findings = (parsed as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(findings)) return [];
  return findings.slice(0, MAX_FINDINGS_PER_CALL).flatMap((finding: unknown) => {
    const { path, title, body, suggestion } = (finding ?? {}) as Record<string, unknown>;
    if (typeof path !== "string" || typeof title !== "string" || typeof body !== "string") return [];
    if (suggestion !== undefined && typeof suggestion !== "string") return [];
    return [findingDigest({ path, title, body, suggestion })];
  });
}

function digest(parts: readonly string[]): string {
  const hash = createHash("sha256");
  // Lengths first: no two lists of parts hash the same text.
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return hash.digest("hex");
}
