import { AppError } from "@reviewbot/core/errors";
import { askpassEnvironment, type GitCredentials } from "./askpass.js";
import { resolveCommit, runGit, type GitContext } from "./run-git.js";

export interface RefRequest {
  /** A ref on the remote (`refs/pull/7/head`, `main`) or a full SHA. */
  readonly ref: string;
  /** The commit the caller expects the ref to name. */
  readonly sha?: string;
}

export interface FetchedPull {
  readonly headSha: string;
  readonly baseSha: string;
  /** The commit of the requested config ref (whose `.ai/` is trusted), or null when none was asked. */
  readonly configSha: string | null;
}

export interface FetchPullRequest {
  readonly remote: string;
  readonly head: RefRequest;
  readonly base: RefRequest;
  /** The ref whose `.ai/` is trusted (the repository's default branch), fetched in the same fetch. */
  readonly config?: RefRequest;
  readonly credentials?: GitCredentials;
  readonly askpassPath: string;
  /** Job-private refs namespace, e.g. `refs/reviewbot/jobs/<id>`. */
  readonly refPrefix: string;
}

/**
 * Fetches the PR head, the base and the config ref (when asked) into job-private refs with one
 * fetch, then checks what arrived: the head must be exactly the expected SHA (a force-push after the
 * webhook is detected, not reviewed), and an expected base or config SHA must be in its ref's
 * history, so that a commit that only exists in a fork can never be taken for a trusted one.
 */
export async function fetchPull(context: GitContext, gitDir: string, request: FetchPullRequest): Promise<FetchedPull> {
  const env = request.credentials === undefined ? {} : askpassEnvironment(request.askpassPath, request.credentials);
  const headRef = `${request.refPrefix}/head`;
  const baseRef = `${request.refPrefix}/base`;
  const configRef = `${request.refPrefix}/config`;
  const configSpec = request.config === undefined ? [] : [`+${request.config.ref}:${configRef}`];
  await runGit(
    context,
    gitDir,
    [
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      "--no-recurse-submodules",
      "--end-of-options",
      request.remote,
      `+${request.head.ref}:${headRef}`,
      `+${request.base.ref}:${baseRef}`,
      ...configSpec,
    ],
    { env },
  );
  const headSha = await resolveCommit(context, gitDir, headRef);
  if (request.head.sha !== undefined && request.head.sha !== headSha) {
    throw new AppError("HEAD_SHA_MISMATCH", `head ${request.head.ref} is ${headSha}, not the expected ${request.head.sha} (force-pushed after the event?)`, {
      details: { expected: request.head.sha, actual: headSha },
    });
  }
  const baseSha = await commitInHistory(context, gitDir, "base", request.base, baseRef);
  const configSha = request.config === undefined ? null : await commitInHistory(context, gitDir, "config", request.config, configRef);
  return { headSha, baseSha, configSha };
}

/** The expected commit of a fetched ref, which must be in the ref's history, or else the ref's tip. */
async function commitInHistory(context: GitContext, gitDir: string, side: string, request: RefRequest, localRef: string): Promise<string> {
  const tip = await resolveCommit(context, gitDir, localRef);
  const sha = request.sha ?? tip;
  if (sha !== tip) {
    const ancestor = await runGit(context, gitDir, ["merge-base", "--is-ancestor", "--end-of-options", sha, tip], {
      okExitCodes: [1, 128],
    });
    if (ancestor.exitCode !== 0) {
      throw new AppError("REF_NOT_FOUND", `${side} ${sha} is not in the history of ${request.ref}`);
    }
  }
  return sha;
}
