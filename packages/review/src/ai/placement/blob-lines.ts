import type { PullDiff } from "@reviewbot/overlay/pull-diff";
import { runGit } from "@reviewbot/overlay/run-git";
import type { LineText } from "./place-findings.js";
import type { RepoSource } from "../repo/repo-source.js";

/** The largest file whose lines are read to check an anchor; past it the anchor cannot match. */
const MAX_BLOB_BYTES = 4 * 1024 * 1024;

/**
 * Reads the lines placement checks anchors against, from git objects by SHA: RIGHT at the head,
 * LEFT at the merge base the diff starts from (under the file's previous path when it was
 * renamed), as GitHub's review comments number them. Each file is read once.
 */
export function blobLines(source: RepoSource, diff: PullDiff): LineText {
  const previous = new Map(diff.files.map((file) => [file.path, file.previousPath ?? file.path]));
  const cache = new Map<string, Promise<string[] | null>>();
  const read = async (commit: string, path: string): Promise<string[] | null> => {
    const result = await runGit(source.context, source.gitDir, ["cat-file", "blob", `${commit}:${path}`], {
      okExitCodes: [128],
      maxOutputBytes: MAX_BLOB_BYTES,
    }).catch(() => null);
    if (result === null || result.exitCode !== 0) return null;
    return result.stdout.toString("utf8").split(/\r?\n/);
  };
  return async (side, path, line) => {
    const commit = side === "RIGHT" ? source.headSha : source.fromSha;
    const name = side === "RIGHT" ? path : (previous.get(path) ?? path);
    const key = `${commit}:${name}`;
    let lines = cache.get(key);
    if (lines === undefined) {
      lines = read(commit, name);
      cache.set(key, lines);
    }
    return (await lines)?.[line - 1] ?? null;
  };
}
