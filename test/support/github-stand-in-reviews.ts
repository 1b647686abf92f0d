import type { StandInReview, StandInState } from "./github-stand-in.js";
import { repoPath, type StandInRoute } from "./github-stand-in-routes.js";
import { addReply, APP_BOT, isOutdated, openThread, type StandInReviewComment, type StandInUser } from "./github-stand-in-threads.js";

/** What `POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews` takes. */
export interface ReviewRequest {
  readonly body?: string;
  readonly event?: string;
  readonly commit_id?: string;
  readonly comments?: Record<string, unknown>[];
}

/**
 * Posts a review as `user` on the PR `key` (`owner/name#number`): 404 for an unknown PR, 422 when
 * a comment is off the diff (as GitHub checks), else every comment opens a thread under `user`.
 */
export function addReview(state: StandInState, key: string, user: StandInUser, request: ReviewRequest): { status: number; body: unknown } {
  const pull = state.pulls.get(key);
  if (pull === undefined) return { status: 404, body: { message: "Not Found" } };
  for (const comment of request.comments ?? []) {
    const hunks = pull.hunks?.[String(comment.path)] ?? [];
    const line = Number(comment.line);
    const start = comment.start_line === undefined ? line : Number(comment.start_line);
    if (comment.side !== "RIGHT" || !hunks.some(([from, to]) => from <= start && line <= to && start <= line)) {
      return { status: 422, body: { message: "Pull request review thread line must be part of the diff" } };
    }
  }
  const review: StandInReview = {
    id: state.nextId++,
    body: request.body ?? "",
    event: request.event ?? "PENDING",
    commit_id: request.commit_id,
    comments: request.comments ?? [],
    user,
  };
  for (const comment of review.comments) {
    openThread(state, key, {
      reviewId: review.id,
      // GitHub places a review without commit_id on the PR's head.
      commitId: review.commit_id ?? pull.headSha,
      path: String(comment.path),
      line: Number(comment.line),
      side: String(comment.side),
      body: String(comment.body),
      user,
    });
  }
  state.reviews.set(key, [...(state.reviews.get(key) ?? []), review]);
  return { status: 200, body: review };
}

/**
 * The PR review endpoints: reviews (listed, and posted with inline comments that GitHub checks
 * against the diff), one review's comments, and replies to a comment. Each posted comment opens a
 * review thread the GraphQL route serves.
 */
export function reviewRoutes(state: StandInState): StandInRoute[] {
  const pullKey = (params: readonly string[]): string => `${params[0] ?? ""}/${params[1] ?? ""}#${params[2] ?? ""}`;
  const paged = <T>(all: readonly T[], query: Readonly<Record<string, string>>): T[] => {
    const perPage = Number(query.per_page ?? 30);
    const page = Number(query.page ?? 1);
    return all.slice((page - 1) * perPage, page * perPage);
  };
  const commentJson = (comment: StandInReviewComment): unknown => {
    const thread = state.threads.get(comment.threadId);
    return {
      id: comment.id,
      pull_request_review_id: comment.reviewId,
      commit_id: comment.commitId,
      original_commit_id: comment.commitId,
      path: comment.path,
      // GitHub's `line` is null once the comment no longer sits on the head's diff.
      line: thread !== undefined && isOutdated(state, thread) ? null : comment.line,
      original_line: comment.line,
      side: comment.side,
      body: comment.body,
      user: comment.user,
      ...(comment.inReplyToId === null ? {} : { in_reply_to_id: comment.inReplyToId }),
    };
  };

  return [
    {
      method: "GET",
      pattern: repoPath(`/pulls/(\\d+)/reviews`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params, query }) => ({ status: 200, body: paged(state.reviews.get(pullKey(params)) ?? [], query) }),
    },
    {
      method: "POST",
      pattern: repoPath(`/pulls/(\\d+)/reviews`),
      auth: "token",
      permission: ["pull_requests", "write"],
      handle: ({ params, body, token }) => addReview(state, pullKey(params), token?.user ?? APP_BOT, body ?? {}),
    },
    {
      method: "GET",
      pattern: repoPath(`/pulls/(\\d+)/reviews/(\\d+)/comments`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params, query }) => {
        const key = pullKey(params);
        const reviewId = Number(params[3]);
        if (!(state.reviews.get(key) ?? []).some((review) => review.id === reviewId)) return { status: 404, body: { message: "Not Found" } };
        const comments = [...state.reviewComments.values()].filter((comment) => comment.pull === key && comment.reviewId === reviewId);
        return { status: 200, body: paged(comments, query).map(commentJson) };
      },
    },
    {
      // Every review comment of a PR, replies included, oldest first, as GitHub lists them.
      method: "GET",
      pattern: repoPath(`/pulls/(\\d+)/comments`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params, query }) => {
        const key = pullKey(params);
        if (!state.pulls.has(key)) return { status: 404, body: { message: "Not Found" } };
        const comments = [...state.reviewComments.values()].filter((comment) => comment.pull === key).sort((a, b) => a.id - b.id);
        return { status: 200, body: paged(comments, query).map(commentJson) };
      },
    },
    {
      method: "GET",
      pattern: repoPath(`/pulls/comments/(\\d+)`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params }) => {
        const comment = state.reviewComments.get(Number(params[2]));
        const repository = `${params[0] ?? ""}/${params[1] ?? ""}`;
        return comment === undefined || !comment.pull.startsWith(`${repository}#`)
          ? { status: 404, body: { message: "Not Found" } }
          : { status: 200, body: commentJson(comment) };
      },
    },
    {
      method: "POST",
      pattern: repoPath(`/pulls/(\\d+)/comments/(\\d+)/replies`),
      auth: "token",
      permission: ["pull_requests", "write"],
      handle: ({ params, body }) => {
        const text = (body as { body?: unknown } | undefined)?.body;
        if (typeof text !== "string" || text === "") return { status: 422, body: { message: "body is required" } };
        const reply = addReply(state, pullKey(params), Number(params[3]), APP_BOT, text);
        return reply === null ? { status: 404, body: { message: "Not Found" } } : { status: 201, body: commentJson(reply) };
      },
    },
  ];
}
