import type { Octokit } from "@octokit/core";
import { AppError } from "@reviewbot/core/errors";
import type { ResolveTask } from "@reviewbot/contracts/github-task";
import { parseReviewJob, type ReviewJob } from "@reviewbot/contracts/review-job";

interface PullRequestData {
  readonly state: string;
  readonly draft?: boolean;
  readonly updated_at: string;
  readonly head: { readonly sha: string };
  readonly base: {
    readonly sha: string;
    readonly ref: string;
    readonly repo: { readonly id: number; readonly default_branch: string; readonly private?: boolean } | null;
  };
}

/**
 * Turns a `resolve` task (an `/review` comment or a check-run re-run names a PR only by number) into
 * a review job: looks the PR up and takes its head SHA with the PR's `updated_at` (`headFrom: "api"`:
 * the head now, however old the delivery that asked), base SHA, base branch and the repository's
 * default branch (whose `.ai/` the worker trusts). Returns null when the PR is closed or gone (404)
 * (nothing to review), or a draft where the operator never reviews drafts (`reviewDrafts` false,
 * REVIEWBOT_DRAFTS=never): a maintainer's request otherwise reviews a draft, whatever the
 * repository's settings say of automatic reviews. A PR whose base repository is not the task's repository is
 * refused: the job would otherwise read config from, and publish to, the wrong repository.
 */
export async function resolvePullRequest(octokit: Octokit, task: ResolveTask, options: { readonly reviewDrafts: boolean }): Promise<ReviewJob | null> {
  const [owner = "", repo = ""] = task.repository.split("/");
  let data: PullRequestData;
  try {
    ({ data } = (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner,
      repo,
      pull_number: task.pullNumber,
    })) as { data: PullRequestData });
  } catch (error) {
    // Deleted, or the repository is no longer readable by the installation: nothing to review.
    if ((error as { status?: unknown }).status === 404) return null;
    throw new AppError("GITHUB_API_FAILED", "could not read the pull request", {
      cause: error,
      details: { repository: task.repository, pullNumber: task.pullNumber, status: (error as { status?: unknown }).status },
    });
  }
  if (data.state !== "open" || (data.draft === true && !options.reviewDrafts)) return null;
  if (data.base.repo?.id !== task.repositoryId) {
    throw new AppError("JOB_INVALID", "the pull request's base repository is not the task's", {
      details: { repository: task.repository, pullNumber: task.pullNumber },
    });
  }
  return parseReviewJob({
    installationId: task.installationId,
    repositoryId: task.repositoryId,
    repository: task.repository,
    pullNumber: task.pullNumber,
    headSha: data.head.sha,
    baseSha: data.base.sha,
    baseRef: data.base.ref,
    defaultBranch: data.base.repo.default_branch,
    repositoryPrivate: data.base.repo.private !== false,
    pullUpdatedAt: data.updated_at,
    headFrom: "api",
    deliveryId: task.deliveryId,
    trigger: task.trigger,
  });
}
