import { diffPieceDigests, type WitnessChain } from "@reviewbot/contracts/model-witness";
import { computePullDiff } from "@reviewbot/overlay/pull-diff";
import type { RepoSource } from "../repo/repo-source.js";
import { reviewScope } from "./review-scope.js";
import type { SkipReason } from "./skip-reason.js";

/** A diff envelope as the review's opening message writes it: the file's path as label, its patch whole. */
export type DiffEnvelope = (path: string, patch: string) => string;

/**
 * The last review's head when this review may start from it, else null (review the whole PR).
 * That head came from a worker's report; the api's model broker recorded which diff pieces each
 * review's model calls showed (`witness`, oldest first, back to a review of the whole PR). Each
 * review of the chain is recomputed here from git objects, with the same scope and envelope code
 * the review itself runs: every hunk it would have shown (files the planner leaves out aside)
 * must be among the pieces the broker saw. A review whose model was never shown some of its
 * code, a chain with a gap, or a commit this mirror lacks: null, never an error.
 */
export async function witnessedPrevious(
  source: RepoSource,
  previous: { readonly headSha: string; readonly witness: WitnessChain },
  envelope: DiffEnvelope,
  skip: SkipReason,
): Promise<string | null> {
  const chain = previous.witness;
  if (chain.at(-1)?.headSha !== previous.headSha || chain[0]?.since !== null) return null;
  for (const [index, link] of chain.entries()) {
    if (index > 0 && link.since !== chain[index - 1]?.headSha) return null;
    if (!(await linkWitnessed(source, link, envelope, skip))) return null;
  }
  return previous.headSha;
}

async function linkWitnessed(source: RepoSource, link: WitnessChain[number], envelope: DiffEnvelope, skip: SkipReason): Promise<boolean> {
  try {
    const diff = await computePullDiff(source.context, source.gitDir, link.baseSha, link.headSha);
    const scope = await reviewScope({ ...source, headSha: link.headSha, baseSha: link.baseSha, fromSha: diff.fromSha }, diff, link.since);
    const seen = new Set(link.diffs);
    return scope.patches
      .filter((patch) => skip(patch) === null)
      .every((patch) => diffPieceDigests(envelope(patch.path, patch.patch)).every((piece) => seen.has(piece)));
  } catch {
    // A base or head this mirror does not hold (a force-pushed branch): nothing to check against.
    return false;
  }
}
