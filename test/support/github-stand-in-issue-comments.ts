import { tokenGrants } from "./github-stand-in-access.js";
import type { StandInState } from "./github-stand-in.js";
import { repoPath, type RouteContext, type StandInRoute } from "./github-stand-in-routes.js";
import { APP_BOT, type StandInUser } from "./github-stand-in-threads.js";

/** A comment on a PR's conversation (GitHub's issue comment). */
export interface StandInIssueComment {
  readonly id: number;
  /** `owner/name#number` of the PR. */
  readonly pull: string;
  body: string;
  readonly user: StandInUser;
  readonly createdAt: string;
  updatedAt: string;
}

/** GitHub's limit for a comment's body, in characters. */
const MAX_BODY = 65_536;

/** Posts `body` as `user` on the PR `key`: 404 for an unknown PR, 422 for a missing or too long body, as GitHub answers. */
export function addIssueComment(state: StandInState, key: string, user: StandInUser, body: unknown): { status: number; body: unknown } {
  if (!state.pulls.has(key)) return { status: 404, body: { message: "Not Found" } };
  const problem = bodyProblem(body);
  if (problem !== null) return problem;
  const now = new Date().toISOString();
  const comment: StandInIssueComment = { id: state.nextId++, pull: key, body: String(body), user, createdAt: now, updatedAt: now };
  state.issueComments.set(comment.id, comment);
  return { status: 201, body: issueCommentJson(comment) };
}

/**
 * The issue comment endpoints on a PR, as GitHub documents them: create (201), list in ascending
 * id order with `per_page` (default 30, at most 100) and `page`, and edit by id (only a comment of
 * that repository; GitHub lets anyone with write access edit it). On a PR, `issues` or
 * `pull_requests` permission grants them; comments are posted as the App's bot user.
 */
export function issueCommentRoutes(state: StandInState): StandInRoute[] {
  const pullKey = (params: readonly string[]): string => `${params[0] ?? ""}/${params[1] ?? ""}#${params[2] ?? ""}`;
  const may = (context: RouteContext, level: "read" | "write"): boolean =>
    context.token !== undefined && (tokenGrants(context.token, ["issues", level]) || tokenGrants(context.token, ["pull_requests", level]));
  const forbidden = { status: 403, body: { message: "Resource not accessible by integration" } };
  return [
    {
      method: "POST",
      pattern: repoPath(`/issues/(\\d+)/comments`),
      auth: "token",
      handle: (context) =>
        may(context, "write") ? addIssueComment(state, pullKey(context.params), APP_BOT, (context.body as { body?: unknown } | undefined)?.body) : forbidden,
    },
    {
      method: "GET",
      pattern: repoPath(`/issues/(\\d+)/comments`),
      auth: "token",
      handle: (context) => {
        if (!may(context, "read")) return forbidden;
        const key = pullKey(context.params);
        if (!state.pulls.has(key)) return { status: 404, body: { message: "Not Found" } };
        const perPage = Math.min(100, Number(context.query.per_page ?? 30));
        const page = Number(context.query.page ?? 1);
        const all = [...state.issueComments.values()].filter((comment) => comment.pull === key).sort((a, b) => a.id - b.id);
        return { status: 200, body: all.slice((page - 1) * perPage, page * perPage).map(issueCommentJson) };
      },
    },
    {
      method: "PATCH",
      pattern: repoPath(`/issues/comments/(\\d+)`),
      auth: "token",
      handle: (context) => {
        if (!may(context, "write")) return forbidden;
        const comment = state.issueComments.get(Number(context.params[2]));
        if (comment === undefined || !comment.pull.startsWith(`${context.params[0] ?? ""}/${context.params[1] ?? ""}#`))
          return { status: 404, body: { message: "Not Found" } };
        const body = (context.body as { body?: unknown } | undefined)?.body;
        const problem = bodyProblem(body);
        if (problem !== null) return problem;
        comment.body = String(body);
        comment.updatedAt = new Date().toISOString();
        return { status: 200, body: issueCommentJson(comment) };
      },
    },
  ];
}

function bodyProblem(body: unknown): { status: number; body: unknown } | null {
  if (typeof body !== "string" || body === "")
    return { status: 422, body: { message: "Validation Failed", errors: [{ field: "body", code: "missing_field" }] } };
  if (body.length > MAX_BODY)
    return {
      status: 422,
      body: { message: "Validation Failed", errors: [{ field: "body", code: "custom", message: "Body is too long (maximum is 65536 characters)" }] },
    };
  return null;
}

function issueCommentJson(comment: StandInIssueComment): unknown {
  const [repository = "", number = ""] = comment.pull.split("#");
  return {
    id: comment.id,
    node_id: `IC_${String(comment.id)}`,
    body: comment.body,
    user: { ...comment.user, node_id: `U_${String(comment.user.id)}` },
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    html_url: `https://github.com/${repository}/pull/${number}#issuecomment-${String(comment.id)}`,
    issue_url: `https://api.github.com/repos/${repository}/issues/${number}`,
    author_association: comment.user.type === "Bot" ? "NONE" : "MEMBER",
  };
}
