import type { Octokit } from "@octokit/core";
import { z } from "zod";

// `permission` is GitHub's legacy field: `admin`, `write` (maintain reports as write), `read`
// (triage reports as read) or `none`. https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user
const Permission = z.object({
  permission: z.string().max(50),
  user: z
    .object({ login: z.string(), type: z.string().max(50) })
    .nullable()
    .optional(),
});
const TRUSTED = new Set(["admin", "write"]);

/**
 * Whether GitHub says `login` may push to the repository (admin, maintain or write) and is not
 * an App: the trust check for people whose action carries no author association (who resolved a
 * thread, who reacted). Anyone else, an unknown login (404), and an answer of the wrong shape are
 * not trusted; other failures throw, so the caller decides.
 */
export async function isTrustedCollaborator(octokit: Octokit, repository: { readonly owner: string; readonly repo: string }, login: string): Promise<boolean> {
  try {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", { ...repository, username: login });
    const parsed = Permission.safeParse(data);
    return parsed.success && TRUSTED.has(parsed.data.permission) && parsed.data.user?.type !== "Bot";
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return false;
    throw error;
  }
}
