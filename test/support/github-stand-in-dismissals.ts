import type { StandInState } from "./github-stand-in.js";
import { repoPath, type StandInRoute } from "./github-stand-in-routes.js";
import type { StandInReviewComment, StandInUser } from "./github-stand-in-threads.js";

/** GitHub's legacy base roles, as `GET …/collaborators/{username}/permission` names them (maintain reads as write, triage as read). */
export type StandInPermission = "admin" | "write" | "read" | "none";

/** Someone's standing in one repository: the `author_association` GitHub puts on their comments, and their permission. */
export interface StandInRole {
  readonly association: string;
  readonly permission: StandInPermission;
}

const roleKey = (repository: string, login: string): string => `${repository}:${login.toLowerCase()}`;

/**
 * Someone's role in `repository`. Without one set, GitHub's answer for an account with no role in
 * a public repository: association `NONE` (the PR's author is `CONTRIBUTOR` once a commit of theirs
 * is merged; tests set that) and permission `read`.
 */
export function roleOf(state: StandInState, repository: string, login: string): StandInRole {
  return state.roles.get(roleKey(repository, login)) ?? { association: "NONE", permission: "read" };
}

export function setRole(state: StandInState, repository: string, login: string, role: StandInRole): void {
  state.roles.set(roleKey(repository, login), role);
}

/**
 * In GraphQL an App is a `Bot`, not a `User`: where the schema types a field `User` (a thread's
 * `resolvedBy`, a reaction's `user`) an App reads as null; an `Actor` (a comment's `author`) is a
 * `Bot` whose login has no `[bot]` suffix.
 */
export function graphqlUser(user: StandInUser | null): { login: string } | null {
  return user === null || user.type === "Bot" ? null : { login: user.login };
}

export function graphqlAuthor(user: StandInUser): { __typename: string; login: string } {
  return user.type === "Bot" ? { __typename: "Bot", login: user.login.replace(/\[bot\]$/, "") } : { __typename: "User", login: user.login };
}

/** A review comment as the dismissal query selects it, with its first `reactions` 👎 reactors. */
export function dismissalComment(state: StandInState, comment: StandInReviewComment, reactions: number): unknown {
  const repository = comment.pull.slice(0, comment.pull.lastIndexOf("#"));
  const thumbsDown = state.reactions
    .filter((reaction) => reaction.subject === "review" && reaction.commentId === comment.id && reaction.content === "-1")
    .slice(0, reactions);
  return {
    databaseId: comment.id,
    authorAssociation: comment.user.type === "Bot" ? "NONE" : roleOf(state, repository, comment.user.login).association,
    author: graphqlAuthor(comment.user),
    body: comment.body,
    reactions: { nodes: thumbsDown.map((reaction) => ({ user: graphqlUser(reaction.user) })) },
  };
}

/**
 * `GET /repos/{owner}/{repo}/collaborators/{username}/permission` (needs `metadata: read`): the
 * legacy `permission` and the `role_name`, with the user; 404 for a login GitHub does not know.
 * https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user
 */
export function permissionRoute(state: StandInState): StandInRoute {
  return {
    method: "GET",
    pattern: repoPath("/collaborators/([^/]+)/permission"),
    auth: "token",
    permission: ["metadata", "read"],
    handle: ({ params: [owner = "", name = "", login = ""] }) => {
      const user = state.users.get(login.toLowerCase());
      if (user === undefined) return { status: 404, body: { message: "Not Found" } };
      const { permission } = roleOf(state, `${owner}/${name}`, login);
      return { status: 200, body: { permission, role_name: permission, user: { login: user.login, id: user.id, type: user.type } } };
    },
  };
}
