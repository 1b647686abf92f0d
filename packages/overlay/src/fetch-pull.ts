import { AppError } from "@reviewbot/core/errors";
import { askpassEnvironment, type GitCredentials } from "./askpass.js";
import { runGit, type GitContext } from "./run-git.js";

export interface RefRequest {
  /** A ref on the remote (`refs/pull/7/head`, `main`) or a full SHA. */
  readonly ref: string;
  /** The commit the caller expects the ref to name. */
  readonly sha?: string;
}

export interface FetchedPull {
  readonly headSha: string;
  readonly baseSha: string;
}

export interface FetchPullRequest {
  readonly remote: string;
  readonly head: RefRequest;
  readonly base: RefRequest;
  readonly credentials?: GitCredentials;
  readonly askpassPath: string;
  /** Job-private refs namespace, e.g. `refs/reviewbot/jobs/<id>`. */
  readonly refPrefix: string;
}

/**
 * Fetches the PR head and the base into job-private refs with one fetch, then checks what arrived:
 * the head must be exactly the expected SHA (a force-push after the webhook is detected, not
 * reviewed), and an expected base SHA must be in the base ref's history, so that a commit that
 * only exists in a fork can never be taken for the trusted base.
 */
export async function fetchPull(context: GitContext, gitDir: string, request: FetchPullRequest): Promise<FetchedPull> {
  const env = request.credentials === undefined ? {} : askpassEnvironment(request.askpassPath, request.credentials);
  const headRef = `${request.refPrefix}/head`;
  const baseRef = `${request.refPrefix}/base`;
  await runGit(
    context,
    gitDir,
    [
      "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--end-of-options",
      request.remote, `+${request.head.ref}:${headRef}`, `+${request.base.ref}:${baseRef}`,
    ],
    { env },
  );
  const headSha = await resolveCommit(context, gitDir, headRef);
  if (request.head.sha !== undefined && request.head.sha !== headSha) {
    throw new AppError(
      "HEAD_SHA_MISMATCH",
      `head ${request.head.ref} is ${headSha}, not the expected ${request.head.sha} (force-pushed after the event?)`,
      { details: { expected: request.head.sha, actual: headSha } },
    );
  }
  const baseTip = await resolveCommit(context, gitDir, baseRef);
  const baseSha = request.base.sha ?? baseTip;
  if (baseSha !== baseTip) {
    const ancestor = await runGit(context, gitDir, ["merge-base", "--is-ancestor", "--end-of-options", baseSha, baseTip], {
      okExitCodes: [1, 128],
    });
    if (ancestor.exitCode !== 0) {
      throw new AppError("REF_NOT_FOUND", `base ${baseSha} is not in the history of ${request.base.ref}`);
    }
  }
  return { headSha, baseSha };
}

async function resolveCommit(context: GitContext, gitDir: string, ref: string): Promise<string> {
  const result = await runGit(context, gitDir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  return result.stdout.toString("utf8").trim();
}
