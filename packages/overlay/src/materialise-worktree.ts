import { mkdir } from "node:fs/promises";
import { splitNulBuffers } from "./nul-records.js";
import { runGit, type GitContext } from "./run-git.js";

const AI_NAME = Buffer.from(".ai");
const NUL = Buffer.from([0]);

/**
 * Writes the head tree into `worktree` without its `.ai` entry, using a private index file so
 * that concurrent jobs never share git state, and leaving no `.git` inside the work tree (the
 * sandbox mounts it; nothing in it may point back at the mirror).
 *
 * The `.ai` entry is dropped from the tree before checkout rather than deleted afterwards, so a
 * PR's `.ai` symlink, file or gitlink is never even written.
 */
export async function materialiseWorktree(context: GitContext, gitDir: string, headSha: string, worktree: string, indexFile: string): Promise<void> {
  const root = await runGit(context, gitDir, ["ls-tree", "-z", "--end-of-options", headSha]);
  // Records stay bytes: a top-level name that is not UTF-8 must reach mktree unchanged.
  const kept = splitNulBuffers(root.stdout).filter((record) => !record.subarray(record.indexOf(9) + 1).equals(AI_NAME));
  const input = Buffer.concat(kept.flatMap((record) => [record, NUL]));
  const made = await runGit(context, gitDir, ["mktree", "-z", "--missing"], { input });
  const tree = made.stdout.toString("utf8").trim();
  const env = { GIT_INDEX_FILE: indexFile };
  await mkdir(worktree, { recursive: true, mode: 0o755 });
  await runGit(context, gitDir, ["read-tree", "--end-of-options", tree], { env });
  await runGit(context, gitDir, ["checkout-index", "--all", "--force"], { env, workTree: worktree });
}
