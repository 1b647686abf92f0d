import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { PullDiff } from "@reviewbot/overlay/pull-diff";
import { anchorHash } from "../../findings/anchor-hash.js";
import { lineMoves, type MoveLine } from "./line-moves.js";
import type { LineText } from "./place-findings.js";
import type { RepoSource } from "../repo/repo-source.js";

/**
 * The findings of the last review that still stand at this head, moved to their lines here: a
 * RIGHT finding follows its line through git's diff from the last review's head (`since`) to
 * this one and is kept when that line was not changed, is still in a hunk of the PR's diff and
 * still reads as its anchor says; a LEFT finding is kept when its line of the merge base is still
 * in a hunk and still reads so. The rest are dropped: their lines changed, and the review of what
 * changed looks at them afresh. The earlier findings come from the api's own record; the checks
 * here are against git objects by SHA.
 */
export async function carryFindings(
  previous: readonly PlacedAiFinding[],
  scope: { readonly since: string; readonly interdiff: PullDiff },
  pr: PullDiff,
  source: RepoSource,
  lineText: LineText,
): Promise<PlacedAiFinding[]> {
  const prFiles = new Map(pr.files.map((file) => [file.path, file]));
  // The interdiff's files by their path at `since`, so a file renamed since then is followed.
  const moved = new Map(scope.interdiff.files.map((file) => [file.previousPath ?? file.path, file]));
  const moves = new Map<string, Promise<MoveLine>>();
  const movesOf = (oldPath: string, newPath: string): Promise<MoveLine> => {
    let move = moves.get(oldPath);
    if (move === undefined) {
      // A file whose diff is past lineMoves' cap carries nothing (every line reads as changed), never fails the review.
      move = lineMoves(source, scope.since, oldPath, source.headSha, newPath).catch((): MoveLine => () => null);
      moves.set(oldPath, move);
    }
    return move;
  };
  const carried: PlacedAiFinding[] = [];
  for (const finding of previous) {
    const change = finding.side === "RIGHT" ? moved.get(finding.path) : undefined;
    if (change?.status === "deleted") continue;
    const path = change?.path ?? finding.path;
    const move: MoveLine = change === undefined ? (line) => line : await movesOf(finding.path, path);
    const line = move(finding.line);
    const startLine = finding.startLine === null ? null : move(finding.startLine);
    const file = prFiles.get(path);
    const hunk =
      line === null ? undefined : (finding.side === "RIGHT" ? file?.hunks : file?.baseHunks)?.find((range) => range.start <= line && line <= range.end);
    // A range whose first line changed is looked at afresh, not shrunk to its last line.
    if (line === null || hunk === undefined || (finding.startLine !== null && startLine === null)) continue;
    const text = await lineText(finding.side, path, line);
    if (text === null || anchorHash(text) !== finding.anchor) continue;
    // A range stays one only within one hunk, as GitHub requires.
    carried.push({ ...finding, path, line, startLine: startLine !== null && startLine < line && startLine >= hunk.start ? startLine : null });
  }
  return carried;
}
