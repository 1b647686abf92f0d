import { mkdir } from "node:fs/promises";
import { splitNul } from "./nul-records.js";
import { runGit, type GitContext } from "./run-git.js";

/**
 * Writes the head tree into `worktree` without its `.ai` entry, using a private index file so
 * that concurrent jobs never share git state, and leaving no `.git` inside the work tree (the
 * sandbox mounts it; nothing in it may point back at the mirror).
 *
 * The `.ai` entry is dropped from the tree before checkout rather than deleted afterwards, so a
 * PR's `.ai` symlink, file or gitlink is never even written.
 */
export async function materialiseWorktree(
  context: GitContext,
  gitDir: string,
  headSha: string,
  worktree: string,
  indexFile: string,
): Promise<void> {
  const root = await runGit(context, gitDir, ["ls-tree", "-z", "--end-of-options", headSha]);
  const kept = splitNul(root.stdout).filter((record) => record.slice(record.indexOf("\t") + 1) !== ".ai");
  const input = kept.map((record) => `${record}\0`).join("");
  const made = await runGit(context, gitDir, ["mktree", "-z", "--missing"], { input });
  const tree = made.stdout.toString("utf8").trim();
  const env = { GIT_INDEX_FILE: indexFile };
  await mkdir(worktree, { recursive: true, mode: 0o755 });
  await runGit(context, gitDir, ["read-tree", "--end-of-options", tree], { env });
  await runGit(context, gitDir, ["checkout-index", "--all", "--force"], { env, workTree: worktree });
}
