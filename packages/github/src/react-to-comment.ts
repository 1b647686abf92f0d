import type { Octokit } from "@octokit/core";
import type { CommandTask } from "@reviewbot/contracts/github-task";

/** Where a command's comment is: its repository, and whether it is on the PR or a reply in a thread. */
export interface CommentPlace {
  readonly owner: string;
  readonly repo: string;
  readonly comment: CommandTask["comment"];
}

/**
 * Reacts 👀 to the comment that gave a command: it was taken. GitHub keeps one reaction per
 * person and content (a repeated one answers 200 with the existing reaction, a new one 201), so
 * a retried task reacts once. False when the comment is gone (404): there is nothing to react to.
 */
export async function reactToComment(octokit: Octokit, place: CommentPlace): Promise<boolean> {
  const route =
    place.comment.on === "issue"
      ? "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
      : "POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions";
  try {
    await octokit.request(route, { owner: place.owner, repo: place.repo, comment_id: place.comment.id, content: "eyes" });
    return true;
  } catch (error) {
    if ((error as { status?: unknown }).status !== 404) throw error;
    return false;
  }
}
