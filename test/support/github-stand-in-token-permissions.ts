import { randomBytes } from "node:crypto";
import type { GitHubStandIn } from "./github-stand-in.js";
import type { StandInUser } from "./github-stand-in-threads.js";

/** GitHub Actions' bot user, as GitHub lists it on what a workflow's GITHUB_TOKEN posts. */
export const ACTIONS_BOT: StandInUser = { login: "github-actions[bot]", id: 41_898_282, type: "Bot" };

/**
 * A workflow job's GITHUB_TOKEN as GitHub issues it: scoped to the workflow's repository, holding
 * exactly the `permissions:` the workflow grants (a fork PR's under `pull_request`: read-only),
 * posting as github-actions[bot]. The stand-in then answers a request past those permissions as
 * GitHub does: 403 "Resource not accessible by integration".
 */
export function issueWorkflowToken(standIn: GitHubStandIn, repository: string, permissions: Readonly<Record<string, "read" | "write">>): string {
  const repositoryId = standIn.state.repositories.get(repository);
  if (repositoryId === undefined) throw new Error(`${repository} is not a stand-in repository`);
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  standIn.state.tokens.set(token, {
    token,
    installationId: 0,
    expiresAt: Date.now() + 3_600_000,
    repositoryIds: [repositoryId],
    permissions: { metadata: "read", ...permissions },
    user: ACTIONS_BOT,
  });
  return token;
}
