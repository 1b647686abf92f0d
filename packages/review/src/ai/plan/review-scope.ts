import { computePullDiff, type PullDiff } from "@reviewbot/overlay/pull-diff";
import { runGit } from "@reviewbot/overlay/run-git";
import type { PatchedFile } from "./plan-chunks.js";
import { readPrPatches } from "./pr-patches.js";
import type { RepoSource } from "../repo/repo-source.js";

/** What the model is shown of a PR: all of it, or what changed since the last review. */
export interface ReviewScope {
  /** The last review's head when only the changes since it are shown; null for the whole PR. */
  readonly since: string | null;
  /** The changes since `since` (null when the whole PR is reviewed), for moving earlier findings to this head. */
  readonly interdiff: PullDiff | null;
  /** The patch sections the review is planned over. */
  readonly patches: readonly PatchedFile[];
}

/**
 * The scope of a review. With the head of the api's last review of this PR, when that commit is an
 * ancestor of this head (a push on top of it, not a force-push or a rebase), only what changed
 * since it, in the files the PR still changes: git's diff from that commit to the head. Otherwise,
 * or when that commit is not in the mirror, the PR's whole patch. The model's `get_diff` tool
 * still shows the whole PR either way.
 */
export async function reviewScope(source: RepoSource, diff: PullDiff, previousHead: string | null): Promise<ReviewScope> {
  const whole = async (): Promise<ReviewScope> => ({ since: null, interdiff: null, patches: await readPrPatches(source, diff) });
  if (previousHead === null || previousHead === source.headSha) return whole();
  // 0: an ancestor; 1: not one; 128: not a commit of the mirror.
  const ancestry = await runGit(source.context, source.gitDir, ["merge-base", "--is-ancestor", "--end-of-options", previousHead, source.headSha], {
    okExitCodes: [1, 128],
  });
  if (ancestry.exitCode !== 0) return whole();
  const interdiff = await computePullDiff(source.context, source.gitDir, previousHead, source.headSha);
  const inPr = new Set(diff.files.map((file) => file.path));
  const patches = await readPrPatches({ ...source, fromSha: previousHead }, interdiff);
  return { since: previousHead, interdiff, patches: patches.filter((patch) => inPr.has(patch.path)) };
}
