import { Octokit } from "@octokit/core";

/**
 * Revokes an installation token (`DELETE /installation/token`, authenticated by the token itself)
 * the moment its job ends, so that a token a worker held dies with the job instead of living out
 * its hour. A token GitHub no longer knows (401: revoked before, or expired) counts as revoked.
 */
export async function revokeRepositoryToken(baseUrl: string, token: string): Promise<void> {
  const octokit = new Octokit({ auth: token, baseUrl, request: { retries: 0 } });
  try {
    await octokit.request("DELETE /installation/token");
  } catch (error) {
    if ((error as { status?: unknown }).status === 401) return;
    throw error;
  }
}
