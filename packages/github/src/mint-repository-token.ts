import { AppError } from "@reviewbot/core/errors";
import type { GitHubApp } from "./create-github-app.js";

/** The only permissions a worker's token carries: enough to fetch one PR, nothing to write. */
export const REPOSITORY_TOKEN_PERMISSIONS = { contents: "read", pull_requests: "read", metadata: "read" } as const;

export interface RepositoryToken {
  readonly token: string;
  readonly expiresAt: string;
}

interface InstallationAuthentication {
  readonly token: string;
  readonly expiresAt: string;
  readonly permissions?: Readonly<Record<string, string>>;
  readonly repositoryIds?: readonly number[];
}

/**
 * Mints an installation token for the token broker, restricted to one repository and read
 * permissions. Always a fresh token (`refresh`), so each job holds its own, with its full
 * lifetime. Fails closed (`GITHUB_API_FAILED`) if GitHub answers with a token wider than asked.
 * The token is registered with the scrubber by the token cache the moment it is minted.
 */
export async function mintRepositoryToken(app: GitHubApp, installationId: number, repositoryId: number): Promise<RepositoryToken> {
  let authentication: InstallationAuthentication;
  try {
    authentication = (await app.octokit.auth({
      type: "installation",
      installationId,
      repositoryIds: [repositoryId],
      permissions: { ...REPOSITORY_TOKEN_PERMISSIONS },
      refresh: true,
    })) as InstallationAuthentication;
  } catch (error) {
    throw new AppError("GITHUB_API_FAILED", "GitHub refused to mint a repository token", {
      cause: error,
      details: { installationId, repositoryId, status: (error as { status?: unknown }).status },
    });
  }
  const granted = Object.entries(authentication.permissions ?? {});
  const wider = granted.some(([name, level]) => level !== "read" || !Object.hasOwn(REPOSITORY_TOKEN_PERMISSIONS, name));
  const repositories = authentication.repositoryIds ?? [];
  if (wider || repositories.length !== 1 || repositories[0] !== repositoryId) {
    throw new AppError("GITHUB_API_FAILED", "GitHub answered with a token wider than requested", {
      details: { installationId, repositoryId, permissions: Object.fromEntries(granted), repositoryIds: repositories },
    });
  }
  return { token: authentication.token, expiresAt: authentication.expiresAt };
}
