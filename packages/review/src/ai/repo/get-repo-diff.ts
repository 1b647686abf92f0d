import { DIFF_FLAGS } from "@reviewbot/overlay/pull-diff";
import { runGit } from "@reviewbot/overlay/run-git";
import { quote } from "@reviewbot/policy/config-error";
import { DiffBudget, type BudgetedDiff } from "./diff-budget.js";
import type { RepoReaderLimits } from "./repo-reader-limits.js";
import { checkRepoPath } from "./repo-path.js";
import { LITERAL_PATHSPECS, type RepoSource } from "./repo-source.js";
import { ToolInputError } from "../tools/tool-input-error.js";

export interface GetDiffResult extends BudgetedDiff {
  /** The path asked for; null for the whole PR. */
  readonly path: string | null;
}

/**
 * The PR's unified diff (from the merge base to the head, with the flags of `computePullDiff`),
 * for one path or the whole PR, cut to `maxDiffBytes` file by file ({@link DiffBudget}).
 */
export async function getRepoDiff(source: RepoSource, request: { readonly path?: string | undefined }, limits: RepoReaderLimits): Promise<GetDiffResult> {
  const path = request.path === undefined ? "" : checkRepoPath("get_diff", request.path);
  const budget = new DiffBudget(limits.maxDiffBytes);
  const args = ["diff", "--patch", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/", ...DIFF_FLAGS];
  const range = ["--end-of-options", source.fromSha, source.headSha, "--"];
  await runGit(source.context, source.gitDir, [...args, ...range, ...(path === "" ? [] : [path])], {
    env: LITERAL_PATHSPECS,
    onStdout: (chunk) => {
      budget.push(chunk);
      return undefined;
    },
  });
  const diff = budget.finish();
  if (path !== "" && diff.text === "" && diff.omittedCount === 0) {
    throw new ToolInputError(`get_diff: the PR does not change ${quote(request.path ?? "", 200)}`);
  }
  return { path: path === "" ? null : path, ...diff };
}
