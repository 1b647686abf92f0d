import type { Octokit } from "@octokit/core";
import type { Logger } from "@reviewbot/core/logger";
import { z } from "zod";
import { askGraphql as ask, checkedAnswer as checked } from "./graphql-call.js";
import { ReviewThread, threadVerdict, type ThreadSweepKind } from "./thread-verdict.js";

export interface ThreadsOfPull {
  readonly owner: string;
  readonly repo: string;
  readonly pullNumber: number;
}

export interface ThreadSweep {
  /** Threads of ours resolved by this call. */
  readonly resolved: number;
  /** Open threads of ours left open: still current, or someone replied. */
  readonly kept: number;
}

const PAGE_SIZE = 100;
// 1,000 threads: far more than a PR reviewbot comments on stays readable with; past it the rest waits for the next push.
const MAX_PAGES = 10;

const THREADS_QUERY = `query ($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: ${PAGE_SIZE}, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated comments(first: 1) { totalCount nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation ($id: ID!) {
  resolveReviewThread(input: { threadId: $id }) { thread { id isResolved } }
}`;

const ThreadsPage = z.object({
  repository: z.object({
    pullRequest: z.object({
      reviewThreads: z.object({
        pageInfo: z
          .object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() })
          .refine((info) => !info.hasNextPage || info.endCursor !== null, "hasNextPage without an endCursor"),
        nodes: z.array(ReviewThread).max(PAGE_SIZE),
      }),
    }),
  }),
});

const ResolvedThread = z.object({
  resolveReviewThread: z.object({ thread: z.object({ id: z.string(), isResolved: z.literal(true) }) }),
});

/**
 * Resolves the review threads a later push left behind: each thread that starts with a
 * comment of ours (`isOurs`, from the ids we posted), that GitHub reports outdated, that is still
 * open and that nobody replied to. Replied threads stay open. With `which: "open"` (the `resolve`
 * command), every open thread of ours, current or answered. Idempotent: resolved threads are
 * skipped, and resolving one twice is harmless. Reads at most {@link MAX_PAGES} pages of threads.
 * GraphQL errors (HTTP 200 with `errors`), HTTP failures and answers of the wrong shape are
 * `GITHUB_API_FAILED`, naming GitHub's messages or the first field that did not match.
 */
export async function resolveOutdatedThreads(
  octokit: Octokit,
  pull: ThreadsOfPull,
  isOurs: (commentDatabaseId: number) => boolean,
  logger: Logger,
  which: ThreadSweepKind = "outdated",
): Promise<ThreadSweep> {
  const details = { repository: `${pull.owner}/${pull.repo}`, pullNumber: pull.pullNumber };
  const toResolve: string[] = [];
  let kept = 0;
  let cursor: string | null = null;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await ask(octokit, THREADS_QUERY, { owner: pull.owner, name: pull.repo, number: pull.pullNumber, cursor }, "review-thread query", details);
    const { pageInfo, nodes } = checked(ThreadsPage, answer, "review-thread query", details).repository.pullRequest.reviewThreads;
    for (const thread of nodes) {
      const verdict = threadVerdict(thread, isOurs, which);
      if (verdict === "resolve") toResolve.push(thread.id);
      if (verdict === "keep") kept++;
    }
    if (!pageInfo.hasNextPage) break;
    if (page === MAX_PAGES) logger.warn({ ...details, pages: MAX_PAGES }, "review threads past the page limit left unread");
    cursor = pageInfo.endCursor;
  }
  // One at a time: mutations count against GitHub's secondary rate limit, and each takes a pace slot.
  for (const id of toResolve) {
    const answer = await ask(octokit, RESOLVE_MUTATION, { id }, "resolveReviewThread mutation", { ...details, threadId: id });
    checked(ResolvedThread, answer, "resolveReviewThread mutation", { ...details, threadId: id });
  }
  if (toResolve.length > 0) logger.info({ ...details, which, resolved: toResolve.length, kept }, "review threads resolved");
  return { resolved: toResolve.length, kept };
}
