import type { ChangedFile, LineRange, PullDiff } from "@reviewbot/overlay/pull-diff";
import type { Finding } from "./finding.js";

/** reviewdog's `-filter-mode` values (https://github.com/reviewdog/reviewdog#filter-mode). */
export const FILTER_MODES = ["added", "diff_context", "file", "nofilter"] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

/** The findings a filter kept and how many it dropped. */
export interface FilterResult {
  readonly kept: Finding[];
  readonly dropped: number;
  readonly mode: FilterMode;
}

/**
 * Keeps the findings a PR is responsible for, as reviewdog's filter modes do:
 * - `added` (the default): the finding's line is one the PR added;
 * - `diff_context`: the line is inside a hunk (added lines and their context);
 * - `file`: the file is changed by the PR, whatever the line;
 * - `nofilter`: everything.
 *
 * Paths must already be repository paths (`mapFindingPath`); a renamed file matches by its new
 * path, and a deleted file matches nothing (it has no head side, like reviewdog's `/dev/null`).
 * A finding without a line is kept by `file` and `nofilter` only: reviewdog looks line 0 up in
 * the diff's lines and never finds it. A multi-line finding is judged by its start line, the
 * line GitHub anchors the annotation or comment to.
 */
export function filterFindings(findings: readonly Finding[], diff: PullDiff, mode: FilterMode = "added"): FilterResult {
  if (mode === "nofilter") return { kept: [...findings], dropped: 0, mode };
  const files = new Map<string, ChangedFile>();
  for (const file of diff.files) if (file.status !== "deleted") files.set(file.path, file);
  const kept = findings.filter((finding) => qualifies(finding, files.get(finding.path), mode));
  return { kept, dropped: findings.length - kept.length, mode };
}

function qualifies(finding: Finding, file: ChangedFile | undefined, mode: Exclude<FilterMode, "nofilter">): boolean {
  if (file === undefined) return false;
  if (mode === "file") return true;
  if (finding.line === null) return false;
  return lineInRanges(mode === "added" ? file.addedLines : file.hunks, finding.line);
}

/** Whether `line` lies in one of `ranges` (a file's hunks or added lines). */
export function lineInRanges(ranges: readonly LineRange[], line: number): boolean {
  return ranges.some((range) => line >= range.start && line <= range.end);
}
