import type { ActionTarget } from "./publish-results.js";

/** GitHub's answer to a request it refused: its status and its `message`. */
export class GitHubRequestError extends Error {
  override readonly name = "GitHubRequestError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether GitHub refused because the token may not do this: a GITHUB_TOKEN without the permission
 * is answered 403 "Resource not accessible by integration" (docs: "Permissions required for GitHub
 * Apps"); a fork PR's token under `pull_request` is read-only, so every write is answered so.
 */
export function isNotPermitted(error: unknown): boolean {
  return error instanceof GitHubRequestError && error.status === 403;
}

const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** One REST call with the job's token; a non-2xx answer throws {@link GitHubRequestError}. Returns the parsed JSON body (unknown: callers parse it). */
export async function githubRequest(target: ActionTarget, method: "GET" | "POST" | "PATCH", path: string, body?: object): Promise<unknown> {
  const response = await fetch(new URL(`${target.apiUrl.replace(/\/+$/, "")}${path}`), {
    method,
    headers: {
      accept: "application/vnd.github+json",
      authorization: `token ${target.token}`,
      "x-github-api-version": "2022-11-28",
      "user-agent": "reviewbot-action",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new GitHubRequestError(response.status, `${method} ${path}: the answer is too large`);
  const data = text === "" ? null : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const message = typeof data === "object" && data !== null && "message" in data ? String(data.message) : response.statusText;
    throw new GitHubRequestError(response.status, `${method} ${path}: ${response.status} ${message.slice(0, 500)}`);
  }
  return data;
}
