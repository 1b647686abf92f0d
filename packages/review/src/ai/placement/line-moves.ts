import { DIFF_FLAGS } from "@reviewbot/overlay/pull-diff";
import { runGit } from "@reviewbot/overlay/run-git";
import type { RepoSource } from "../repo/repo-source.js";

/** A changed stretch of a file: `oldCount` lines at `oldStart` became `newCount` lines at `newStart`. */
interface Change {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newCount: number;
}

/** Maps a line of a file at one commit to the same line at a later commit, null when it was changed or removed. */
export type MoveLine = (line: number) => number | null;

/** The largest blob diffed to move lines; past it the earlier findings of the file are not carried. */
const MAX_DIFF_BYTES = 8 * 1024 * 1024;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Where the lines of `from:oldPath` are in `to:newPath`: git's diff of the two blobs without
 * context, read from its hunk headers only (a line of the file's text starts with " ", "+" or "-",
 * never "@@", so the file cannot forge one). A line inside a change maps to null: its text may
 * be another now, and a review of what changed looks at it afresh.
 */
export async function lineMoves(source: RepoSource, from: string, oldPath: string, to: string, newPath: string): Promise<MoveLine> {
  const { stdout } = await runGit(
    source.context,
    source.gitDir,
    ["diff", "--unified=0", ...DIFF_FLAGS, "--end-of-options", `${from}:${oldPath}`, `${to}:${newPath}`],
    {
      maxOutputBytes: MAX_DIFF_BYTES,
    },
  );
  const changes = parseChanges(stdout.toString("utf8"));
  return (line) => {
    let shift = 0;
    for (const change of changes) {
      // A change of no old lines inserts after `oldStart`; one of some replaces oldStart..oldStart+oldCount-1.
      const first = change.oldCount === 0 ? change.oldStart + 1 : change.oldStart;
      if (line < first) break;
      if (line < first + change.oldCount) return null;
      shift += change.newCount - change.oldCount;
    }
    return line + shift;
  };
}

function parseChanges(patch: string): Change[] {
  const changes: Change[] = [];
  for (let start = 0; start < patch.length;) {
    const end = patch.indexOf("\n", start);
    const stop = end === -1 ? patch.length : end;
    if (patch.startsWith("@@ -", start)) {
      const match = HUNK_HEADER.exec(patch.slice(start, Math.min(stop, start + 100)));
      if (match !== null) changes.push({ oldStart: Number(match[1]), oldCount: Number(match[2] ?? 1), newCount: Number(match[4] ?? 1) });
    }
    start = stop + 1;
  }
  return changes;
}
