import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { GitContext } from "@reviewbot/overlay/run-git";

/**
 * The git objects a review reads: the job's mirror (a held Checkout's `git`) and the commits of
 * the PR. Tools read these objects by SHA, never the checkout's work tree, whose files (symlinks
 * included) the PR controls.
 */
export interface RepoSource {
  readonly context: GitContext;
  readonly gitDir: string;
  readonly headSha: string;
  readonly baseSha: string;
  /** Where the PR's diff starts: the merge base (`PullDiff.fromSha`). */
  readonly fromSha: string;
}

/** The git objects of a held checkout. */
export function repoSourceOf(checkout: Checkout): RepoSource {
  return { context: checkout.git.context, gitDir: checkout.git.gitDir, headSha: checkout.headSha, baseSha: checkout.baseSha, fromSha: checkout.diff.fromSha };
}

/** Which version a tool reads: the PR's head or the target branch's base. */
export type Side = "head" | "base";

/** The commit of `side`. */
export function commitOf(source: RepoSource, side: Side): string {
  return side === "head" ? source.headSha : source.baseSha;
}

/**
 * Pathspecs are literal: a model asking for `a*` or `[a]` means that file, not a glob (and a glob
 * could sweep in files it did not name).
 */
export const LITERAL_PATHSPECS: Readonly<Record<string, string>> = { GIT_LITERAL_PATHSPECS: "1" };
