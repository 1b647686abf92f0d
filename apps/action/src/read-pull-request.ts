import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { readCapped } from "@reviewbot/llm/read-capped";

/** A PR's answer is a few kB; its body is at most 65,536 characters. */
const PULL_MAX_BYTES = 1024 * 1024;
const sha = z.string().regex(/^[0-9a-f]{40}$/);
const refName = z.string().min(1).max(255);

const PullResponse = z.object({
  number: z.number().int().positive(),
  state: z.string().max(20),
  title: z.string().max(1024),
  body: z.string().max(262_144).nullable(),
  head: z.object({ sha }),
  base: z.object({ sha, ref: refName, repo: z.object({ default_branch: refName }) }),
});

/** What the API says of the PR to review: which commits, which branch, and whose `.ai/` is trusted. */
export interface PullRequestFacts {
  readonly number: number;
  readonly open: boolean;
  readonly headSha: string;
  readonly baseSha: string;
  readonly baseRef: string;
  /** The base repository's default branch: its head's `.ai/` is the trusted config. */
  readonly defaultBranch: string;
  /** Untrusted text (the PR author's), for the context script and the model as data. */
  readonly title: string;
  readonly body: string;
}

export interface ApiAccess {
  readonly apiUrl: string;
  readonly token: string;
  readonly repository: string;
}

/**
 * `GET /repos/{owner}/{repo}/pulls/{n}` of the workflow's own repository (`GITHUB_REPOSITORY`: GitHub
 * answers only PRs whose base is that repository) with the job's token, its answer size-capped and
 * checked.
 *
 * @throws AppError `GITHUB_API_FAILED` when GitHub does not answer with the PR.
 */
export async function readPullRequest(access: ApiAccess, pullNumber: number): Promise<PullRequestFacts> {
  const url = `${access.apiUrl.replace(/\/+$/, "")}/repos/${access.repository}/pulls/${String(pullNumber)}`;
  const response = await fetch(url, {
    headers: { authorization: `token ${access.token}`, accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" },
  });
  const { text, complete } = await readCapped(response, PULL_MAX_BYTES);
  if (!response.ok) throw new AppError("GITHUB_API_FAILED", `could not read pull request #${String(pullNumber)}: GitHub answered ${String(response.status)}`);
  let data: z.infer<typeof PullResponse>;
  try {
    if (!complete) throw new Error("too large");
    data = PullResponse.parse(JSON.parse(text));
  } catch {
    throw new AppError("GITHUB_API_FAILED", `pull request #${String(pullNumber)}: GitHub's answer is not a pull request`);
  }
  return {
    number: data.number,
    open: data.state === "open",
    headSha: data.head.sha,
    baseSha: data.base.sha,
    baseRef: data.base.ref,
    defaultBranch: data.base.repo.default_branch,
    title: data.title,
    body: data.body ?? "",
  };
}
