import type { Octokit } from "@octokit/core";
import type { ReplyThread } from "@reviewbot/contracts/worker-protocol";

interface ListedComment {
  readonly id: number;
  readonly in_reply_to_id?: number;
  readonly path?: string;
  readonly line?: number | null;
  readonly original_line?: number | null;
  readonly body?: string | null;
  readonly user?: { readonly login?: string } | null;
}

/** Pages of a PR's review comments read to find a thread's replies. */
const MAX_PAGES = 10;
/** The thread's first comment and at most this many replies before the one answered (the latest kept). */
const MAX_REPLIES = 48;
const MAX_BODY = 65_536;

/**
 * A review thread as GitHub has it now, for the model to answer (the worker wraps every body as
 * untrusted data): the thread's first comment, then its replies up to and including `reply`,
 * oldest first, each marked `ours` when the api's record says we posted it. Null when the thread
 * or the reply is gone.
 */
export async function readReplyThread(
  octokit: Octokit,
  pull: { readonly repository: string; readonly pullNumber: number },
  reply: { readonly commentId: number; readonly threadId: number },
  isOurs: (commentId: number) => boolean,
): Promise<ReplyThread | null> {
  const [owner = "", repo = ""] = pull.repository.split("/");
  const root = await octokit.request("GET /repos/{owner}/{repo}/pulls/comments/{comment_id}", { owner, repo, comment_id: reply.threadId }).then(
    ({ data }) => data as ListedComment,
    () => null,
  );
  if (root === null) return null;
  const replies: ListedComment[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data } = (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", {
      owner,
      repo,
      pull_number: pull.pullNumber,
      per_page: 100,
      page,
    })) as {
      data: ListedComment[];
    };
    replies.push(...data.filter((comment) => comment.in_reply_to_id === reply.threadId && comment.id <= reply.commentId));
    if (data.length < 100) break;
  }
  replies.sort((a, b) => a.id - b.id);
  if (replies.at(-1)?.id !== reply.commentId) return null;
  const entry = (comment: ListedComment) => ({
    author: (comment.user?.login ?? "").slice(0, 100),
    ours: isOurs(comment.id),
    body: (comment.body ?? "").slice(0, MAX_BODY),
  });
  return {
    path: (root.path ?? "").slice(0, 4096),
    line: root.line ?? root.original_line ?? null,
    comments: [entry(root), ...replies.slice(-MAX_REPLIES).map(entry)],
  };
}
