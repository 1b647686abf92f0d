import type { Octokit } from "@octokit/core";

/** What the AI review shows the model of a PR besides its code: untrusted text, capped here. */
export interface PullRequestText {
  readonly title: string;
  readonly body: string;
}

const MAX_TITLE = 1000;
const MAX_BODY = 20_000;

/**
 * The PR's title and description as GitHub has them now, for the model (wrapped as untrusted data
 * by the worker). Null when GitHub does not answer: the review goes on without them.
 */
export async function describePullRequest(octokit: Octokit, repository: string, pullNumber: number): Promise<PullRequestText | null> {
  const [owner = "", repo = ""] = repository.split("/");
  try {
    const { data } = (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner, repo, pull_number: pullNumber })) as {
      data: { title?: unknown; body?: unknown };
    };
    return {
      title: typeof data.title === "string" ? data.title.slice(0, MAX_TITLE) : "",
      body: typeof data.body === "string" ? data.body.slice(0, MAX_BODY) : "",
    };
  } catch {
    return null;
  }
}
