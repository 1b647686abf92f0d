import { StringDecoder } from "node:string_decoder";
import type { LineRange } from "./line-ranges.js";
import { splitNul } from "./nul-records.js";
import { parseBinaryPaths, parseRawDiff, type ChangeStatus } from "./parse-raw-diff.js";
import { PatchParser } from "./parse-patch.js";
import { runGit, type GitContext } from "./run-git.js";

export type { ChangeStatus } from "./parse-raw-diff.js";
export type { LineRange } from "./line-ranges.js";

export interface ChangedFile {
  readonly path: string;
  readonly previousPath: string | null;
  readonly status: ChangeStatus;
  readonly binary: boolean;
  readonly addedLines: readonly LineRange[];
  /** Head-side (RIGHT) extent of every hunk, context lines included. */
  readonly hunks: readonly LineRange[];
  /** Base-side (LEFT) extent of every hunk, in the lines of `previousPath ?? path` at `fromSha`. */
  readonly baseHunks: readonly LineRange[];
}

export interface PullDiff {
  readonly baseSha: string;
  readonly headSha: string;
  /** The commit the diff starts from: the merge base, as GitHub's "files changed" view uses. */
  readonly fromSha: string;
  readonly files: readonly ChangedFile[];
}

/** The flags of every PR diff: rename detection, and no external diff, textconv or colour. */
export const DIFF_FLAGS = ["-M", "--no-ext-diff", "--no-textconv", "--no-color", "--no-relative"] as const;

/**
 * The changes a PR makes: files with status, the head-side lines it added, and the hunk extents on
 * both sides.
 * Three-dot semantics like GitHub: the diff runs from the merge base of base and head (falling back
 * to the base itself for unrelated histories).
 */
export async function computePullDiff(context: GitContext, gitDir: string, baseSha: string, headSha: string): Promise<PullDiff> {
  const mergeBase = await runGit(context, gitDir, ["merge-base", "--end-of-options", baseSha, headSha], {
    okExitCodes: [1],
  });
  const fromSha = mergeBase.exitCode === 0 ? mergeBase.stdout.toString("utf8").trim() : baseSha;
  const range = ["--end-of-options", fromSha, headSha];
  const raw = await runGit(context, gitDir, ["diff", "--raw", "-z", "--no-abbrev", ...DIFF_FLAGS, ...range]);
  const numstat = await runGit(context, gitDir, ["diff", "--numstat", "-z", ...DIFF_FLAGS, ...range]);
  const parser = new PatchParser();
  // A multi-byte character may straddle two chunks; the decoder holds the partial bytes.
  const decoder = new StringDecoder("utf8");
  await runGit(context, gitDir, ["diff", "--patch", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/", ...DIFF_FLAGS, ...range], {
    onStdout: (chunk) => {
      parser.push(decoder.write(chunk));
      return undefined;
    },
  });
  parser.push(decoder.end());
  const hunksByPath = parser.finish();
  const binary = parseBinaryPaths(splitNul(numstat.stdout));
  const files = parseRawDiff(splitNul(raw.stdout)).map((change): ChangedFile => {
    const hunks = change.status === "deleted" ? undefined : hunksByPath.get(change.path);
    return {
      path: change.path,
      previousPath: change.previousPath,
      status: change.status,
      binary: binary.has(change.path),
      addedLines: hunks?.added ?? [],
      hunks: hunks?.hunks ?? [],
      baseHunks: hunks?.baseHunks ?? [],
    };
  });
  return { baseSha, headSha, fromSha, files };
}
