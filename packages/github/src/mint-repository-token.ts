import { AppError } from "@reviewbot/core/errors";
import { z } from "zod";
import type { GitHubApp } from "./create-github-app.js";

/** The only permissions a worker's token carries: enough to fetch one PR, nothing to write. */
export const REPOSITORY_TOKEN_PERMISSIONS = { contents: "read", pull_requests: "read", metadata: "read" } as const;

export interface RepositoryToken {
  readonly token: string;
  readonly expiresAt: string;
}

/** GitHub's answer to `POST /app/installations/{installation_id}/access_tokens`, the parts we check. */
const AccessToken = z.object({
  token: z.string().min(1),
  expires_at: z.string().min(1),
  permissions: z.record(z.string(), z.string()).default({}),
  repositories: z.array(z.object({ id: z.number().int() })).default([]),
});

/**
 * Mints an installation token for the token broker, restricted to one repository and read
 * permissions: one fresh token per call, with its full lifetime, so that each job holds its own and
 * revoking it at the job's end touches no other job. It is asked for directly with the App's JWT,
 * not through auth-app's `auth({ type: "installation" })`: that shares one in-flight mint among
 * concurrent calls with the same installation, repositories and permissions (even with `refresh`),
 * which handed concurrent claims of one repository the same token (issue 25), and it would put
 * the token in the shared installation-token cache. Fails closed (`GITHUB_API_FAILED`) if GitHub
 * refuses, answers malformed, or answers with a token wider than asked. The caller registers the
 * token with its scrubber.
 */
export async function mintRepositoryToken(app: GitHubApp, installationId: number, repositoryId: number): Promise<RepositoryToken> {
  let answer: unknown;
  try {
    answer = (
      await app.octokit.request("POST /app/installations/{installation_id}/access_tokens", {
        installation_id: installationId,
        repository_ids: [repositoryId],
        permissions: { ...REPOSITORY_TOKEN_PERMISSIONS },
      })
    ).data;
  } catch (error) {
    throw new AppError("GITHUB_API_FAILED", "GitHub refused to mint a repository token", {
      cause: error,
      details: { installationId, repositoryId, status: (error as { status?: unknown }).status },
    });
  }
  const parsed = AccessToken.safeParse(answer);
  if (!parsed.success) {
    throw new AppError("GITHUB_API_FAILED", "GitHub answered the token mint with an unexpected body", { details: { installationId, repositoryId } });
  }
  const granted = Object.entries(parsed.data.permissions);
  const wider = granted.some(([name, level]) => level !== "read" || !Object.hasOwn(REPOSITORY_TOKEN_PERMISSIONS, name));
  const repositories = parsed.data.repositories.map((repository) => repository.id);
  if (wider || repositories.length !== 1 || repositories[0] !== repositoryId) {
    throw new AppError("GITHUB_API_FAILED", "GitHub answered with a token wider than requested", {
      details: { installationId, repositoryId, permissions: Object.fromEntries(granted), repositoryIds: repositories },
    });
  }
  return { token: parsed.data.token, expiresAt: parsed.data.expires_at };
}
