import type { Octokit } from "@octokit/core";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { PR_COMMANDS } from "@reviewbot/contracts/pr-command";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { postOnce } from "./post-once.js";
import type { CommentPlace } from "./react-to-comment.js";

/** The help reply: every command of packages/contracts/src/pr-command.ts, as `@<slug> <command>`. */
export function renderCommandHelp(slug: string): string {
  const rows = PR_COMMANDS.map((command) => `| \`@${slug} ${command.name}\` | ${command.description} |`);
  return [
    "reviewbot takes these commands from the repository's maintainers, as the first line of a comment on the PR or a reply in one of its threads:",
    "",
    "| command | what it does |",
    "|---|---|",
    ...rows,
    "",
    "`/review` still asks for a review of the whole PR.",
  ].join("\n");
}

/**
 * Replies with the command list to the comment that asked (`help`, or a command we do not know),
 * once per comment: Redis remembers the reply's id for the comment's id ({@link postOnce}), so a
 * redelivered or retried command does not reply twice. A comment on the PR gets a PR comment; a
 * reply in one of our threads is answered in that thread. Returns the reply's id; null when GitHub
 * refused it for good (the thread or PR is gone).
 */
export async function postHelpOnce(
  octokit: Octokit,
  redis: RedisClient,
  keys: RedisKeyspace,
  target: CommentPlace & { readonly repositoryId: number; readonly pullNumber: number; readonly slug: string },
): Promise<number | null> {
  const { owner, repo, comment, repositoryId, pullNumber } = target;
  const marks = {
    postedKey: `${keys.ours}:help:${String(repositoryId)}:${String(comment.id)}`,
    lockKey: `${keys.ours}:lock:help:${String(repositoryId)}:${String(comment.id)}`,
  };
  const body = renderCommandHelp(target.slug);
  return postOnce(redis, marks, async () => {
    try {
      const { data } =
        comment.on === "issue"
          ? await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner, repo, issue_number: pullNumber, body })
          : await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
              owner,
              repo,
              pull_number: pullNumber,
              comment_id: comment.threadId,
              body,
            });
      return Number(data.id);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status !== 404 && status !== 410 && status !== 422) throw error;
      return 0;
    }
  });
}
