import type { StandInState } from "./github-stand-in.js";
import { repoPath, type StandInRoute } from "./github-stand-in-routes.js";
import { APP_BOT, type StandInUser } from "./github-stand-in-threads.js";

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

/**
 * Reactions to comments, as GitHub's REST API serves them: a reaction needs a known content (422)
 * on a comment of the repository (404), and one person's repeated reaction of the same content is
 * the existing one, answered 200, where a new one is 201.
 */
export function reactionRoutes(state: StandInState): StandInRoute[] {
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
    { method: "POST", pattern: repoPath(`/issues/comments/(\\d+)/reactions`), auth: "token", permission: ["pull_requests", "write"], handle: react("issue") },
    { method: "POST", pattern: repoPath(`/pulls/comments/(\\d+)/reactions`), auth: "token", permission: ["pull_requests", "write"], handle: react("review") },
  ];
}
