import type { PullDiff } from "@reviewbot/overlay/pull-diff";
import type { LineText } from "../ai/placement/place-findings.js";
import { anchorHash } from "../findings/anchor-hash.js";
import { lineInRanges } from "../findings/diff-filter.js";
import type { Finding } from "../findings/finding.js";

/** A helper finding with the anchor of its line, when that line can carry a review comment. */
export interface AnchoredFinding extends Finding {
  /** See `anchorHash`; null for a finding without a line, or on a line outside the diff's hunks. */
  readonly anchor: string | null;
}

/**
 * Gives each finding on a line of the diff's head-side hunks the anchor of that line's text at the
 * head (read from git objects, never the work tree): the publisher's fingerprint of a review
 * comment, so one already posted on an unchanged line is not posted again after a push. Only such
 * findings can become comments; the others keep `null` and cost no read.
 */
export async function anchorFindings(findings: readonly Finding[], diff: PullDiff, lineText: LineText): Promise<AnchoredFinding[]> {
  const hunks = new Map(diff.files.map((file) => [file.path, file.hunks]));
  const anchored: AnchoredFinding[] = [];
  for (const finding of findings) {
    const { line } = finding;
    const commentable = line !== null && lineInRanges(hunks.get(finding.path) ?? [], line);
    const text = commentable ? await lineText("RIGHT", finding.path, line) : null;
    anchored.push({ ...finding, anchor: text === null ? null : anchorHash(text) });
  }
  return anchored;
}
