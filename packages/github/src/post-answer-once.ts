import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { isOurAuthor, type ListedAuthor } from "./app-identity.js";
import type { ReviewTarget } from "./post-review-once.js";
import { sanitiseMarkdown } from "./sanitise-markdown.js";
import { truncateUtf8 } from "./truncate-utf8.js";
import { postOnce } from "./post-once.js";

interface ListedComment {
  readonly id: number;
  readonly in_reply_to_id?: number;
  readonly body?: string | null;
  readonly user?: ListedAuthor | null;
}

const MAX_PAGES = 10;
const ANSWER_MAX_BYTES = 16_000;

/** The hidden marker of our answer to one reply, so it is posted once. */
export function answerMarker(replyId: number): string {
  return `<!-- reviewbot:answer:${String(replyId)} -->`;
}

/**
 * Posts the model's answer to one reply in its thread, at most once: skipped when Redis remembers
 * it, or when the thread already has a comment of our App's bot user (by its user id) carrying the
 * reply's marker: anyone, another App's bot included, can quote the marker. Posting happens under
 * a Redis lock. The answer is model-written from untrusted text: escaped like every model string (no link, image, HTML or mention can form) and scrubbed.
 * Returns the answer's comment id; null when GitHub refused it (422: the thread is gone).
 */
export async function postAnswerOnce(
  target: Omit<ReviewTarget, "headSha">,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  reply: { readonly commentId: number; readonly threadId: number },
  answer: string,
): Promise<number | null> {
  const { redis, keys, repositoryId } = target;
  const marks = {
    postedKey: `${keys.ours}:answer:${repositoryId}:${reply.commentId}`,
    lockKey: `${keys.ours}:lock:answer:${repositoryId}:${reply.commentId}`,
  };
  return postOnce(redis, marks, async () => {
    const marker = answerMarker(reply.commentId);
    const posted = await findPosted(target, reply.threadId, marker);
    if (posted !== null) return posted;
    const body = `${truncateUtf8(sanitiseMarkdown(deps.scrubber.scrub(answer), { inline: false }), ANSWER_MAX_BYTES)}\n\n${marker}`;
    try {
      const { data } = await target.octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.pullNumber,
        comment_id: reply.threadId,
        body,
      });
      return (data as { id: number }).id;
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status !== 422 && status !== 404) throw error;
      deps.logger.warn({ err: error, threadId: reply.threadId }, "github refused the answer: the thread is gone");
      return 0;
    }
  });
}

async function findPosted(target: Omit<ReviewTarget, "headSha">, threadId: number, marker: string): Promise<number | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data } = (await target.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.pullNumber,
      per_page: 100,
      page,
    })) as { data: ListedComment[] };
    const ours = data.find(
      (comment) => comment.in_reply_to_id === threadId && isOurAuthor(target.identity, comment.user) && (comment.body ?? "").endsWith(marker),
    );
    if (ours !== undefined) return ours.id;
    if (data.length < 100) return null;
  }
  return null;
}
