import type { StandInState } from "./github-stand-in.js";
import { repoPath, type StandInRoute } from "./github-stand-in-routes.js";
import { APP_BOT, type StandInUser } from "./github-stand-in-threads.js";

/** A comment on a PR's conversation (GitHub's issue comment: a PR is an issue). */
export interface StandInIssueComment {
  readonly id: number;
  /** `owner/name#number` of the PR. */
  readonly pull: string;
  readonly body: string;
  readonly user: StandInUser;
}

/** A reaction on a comment: `issue` for an issue comment, `review` for a review comment. */
export interface StandInReaction {
  readonly id: number;
  readonly subject: "issue" | "review";
  readonly commentId: number;
  readonly content: string;
  readonly user: StandInUser;
}

// GitHub's reaction contents (docs: "Reactions": the `content` parameter).
const CONTENTS = new Set(["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]);

/** Adds `user`'s comment to the PR's conversation, as GitHub serves `POST …/issues/{n}/comments`. */
export function addIssueComment(state: StandInState, pull: string, user: StandInUser, body: string): StandInIssueComment {
  const comment: StandInIssueComment = { id: state.nextId++, pull, body, user };
  state.issueComments.set(comment.id, comment);
  return comment;
}

/**
 * Issue comments on a PR and reactions to comments, as GitHub's REST API serves them: a comment
 * needs a `body` (422) on a PR that exists (404); a reaction needs a known content (422) on a
 * comment of the repository (404), and one person's repeated reaction of the same content is the
 * existing one, answered 200, where a new one is 201.
 */
export function commentRoutes(state: StandInState): StandInRoute[] {
  const pullKey = (params: readonly string[]): string => `${params[0] ?? ""}/${params[1] ?? ""}#${params[2] ?? ""}`;
  const json = (comment: StandInIssueComment): unknown => ({ id: comment.id, body: comment.body, user: comment.user });
  const react =
    (subject: StandInReaction["subject"]) =>
    ({ params, body }: { params: readonly string[]; body: unknown }) => {
      const commentId = Number(params[2]);
      const repository = `${params[0] ?? ""}/${params[1] ?? ""}`;
      const onPull = subject === "issue" ? state.issueComments.get(commentId)?.pull : state.reviewComments.get(commentId)?.pull;
      if (onPull?.split("#")[0] !== repository) return { status: 404, body: { message: "Not Found" } };
      const content = (body as { content?: unknown } | undefined)?.content;
      if (typeof content !== "string" || !CONTENTS.has(content)) return { status: 422, body: { message: "Validation Failed" } };
      const existing = state.reactions.find((r) => r.subject === subject && r.commentId === commentId && r.content === content && r.user.id === APP_BOT.id);
      if (existing !== undefined) return { status: 200, body: { id: existing.id, content, user: existing.user } };
      const reaction: StandInReaction = { id: state.nextId++, subject, commentId, content, user: APP_BOT };
      state.reactions.push(reaction);
      return { status: 201, body: { id: reaction.id, content, user: reaction.user } };
    };
  return [
    {
      method: "POST",
      pattern: repoPath(`/issues/(\\d+)/comments`),
      auth: "token",
      permission: ["pull_requests", "write"],
      handle: ({ params, body }) => {
        const text = (body as { body?: unknown } | undefined)?.body;
        if (!state.pulls.has(pullKey(params))) return { status: 404, body: { message: "Not Found" } };
        if (typeof text !== "string" || text === "") return { status: 422, body: { message: "Validation Failed" } };
        return { status: 201, body: json(addIssueComment(state, pullKey(params), APP_BOT, text)) };
      },
    },
    { method: "POST", pattern: repoPath(`/issues/comments/(\\d+)/reactions`), auth: "token", permission: ["pull_requests", "write"], handle: react("issue") },
    { method: "POST", pattern: repoPath(`/pulls/comments/(\\d+)/reactions`), auth: "token", permission: ["pull_requests", "write"], handle: react("review") },
  ];
}
