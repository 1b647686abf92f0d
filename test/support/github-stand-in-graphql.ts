import type { MintedToken, StandInState } from "./github-stand-in.js";
import { tokenGrants, tokenReaches } from "./github-stand-in-access.js";
import type { StandInRoute } from "./github-stand-in-routes.js";
import { dismissalComment, graphqlUser } from "./github-stand-in-dismissals.js";
import { APP_BOT, isOutdated, type StandInThread } from "./github-stand-in-threads.js";

type Variables = Readonly<Record<string, unknown>>;
type GraphqlAnswer = { data?: unknown; errors?: { type?: string; path?: string[]; message: string }[] };

// A GraphQL lexer's tokens, commas and comments being insignificant; enough for the documents reviewbot sends.
const TOKEN = /\$?[_A-Za-z][_0-9A-Za-z]*|-?\d+|\.\.\.|[!():=@[\]{}|]|"(?:[^"\\]|\\.)*"/g;
const tokens = (text: string): string[] => text.replace(/#[^\n]*/g, "").match(TOKEN) ?? [];

/** A selection written as GraphQL, `$_` standing for any variable and `__N__` for a number, as a pattern over tokens. */
function selection(text: string): RegExp {
  const part = (token: string): string => (token === "$_" ? "\\$(\\w+)" : token === "__N__" ? "(\\d+)" : token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${tokens(text).map(part).join(" ")}$`);
}

const THREADS = selection(`{ repository(owner: $_, name: $_) { pullRequest(number: $_) { reviewThreads(first: __N__, after: $_) {
  pageInfo { hasNextPage endCursor }
  nodes { id isResolved isOutdated comments(first: 1) { totalCount nodes { databaseId } } } } } } }`);
const DISMISSALS = selection(`{ repository(owner: $_, name: $_) { pullRequest(number: $_) { reviewThreads(first: __N__, after: $_) {
  pageInfo { hasNextPage endCursor }
  nodes { isResolved resolvedBy { login } comments(first: __N__) { nodes {
    databaseId authorAssociation author { __typename login } body
    reactions(content: THUMBS_DOWN, first: __N__) { nodes { user { login } } } } } } } } } }`);
const RESOLVE = selection(`{ resolveReviewThread(input: { threadId: $_ }) { thread { id isResolved } } }`);

const failure = (message: string, type?: string, path?: string[]): GraphqlAnswer => ({
  errors: [{ ...(type === undefined ? {} : { type }), ...(path === undefined ? {} : { path }), message }],
});
const FORBIDDEN = "Resource not accessible by integration";
const cursorOf = (index: number): string => Buffer.from(`cursor:${index}`).toString("base64");

/**
 * `POST /graphql`, answering exactly three operations, recognised by what they select: a page of a
 * PR's review threads (with their first comment's id, or with their first comments, resolver and
 * 👎 reactors) and `resolveReviewThread`. Like GitHub, every other document, and every refusal
 * (a repository or thread the token cannot see, a permission it lacks), is HTTP 200 with `errors`.
 * The mutation needs `pull_requests: write`.
 */
export function graphqlRoute(state: StandInState): StandInRoute {
  const threadsPage = (
    token: MintedToken,
    [owner, name, number, first, after]: string[],
    variables: Variables,
    node: (thread: StandInThread) => unknown,
  ): GraphqlAnswer => {
    const repository = `${String(variables[owner ?? ""])}/${String(variables[name ?? ""])}`;
    if (!tokenReaches(state, token, repository))
      return { data: { repository: null }, ...failure(`Could not resolve to a Repository with the name '${repository}'.`, "NOT_FOUND", ["repository"]) };
    if (!tokenGrants(token, ["pull_requests", "read"]))
      return { data: { repository: { pullRequest: null } }, ...failure(FORBIDDEN, "FORBIDDEN", ["repository", "pullRequest"]) };
    const key = `${repository}#${String(variables[number ?? ""])}`;
    if (!state.pulls.has(key))
      return {
        data: { repository: { pullRequest: null } },
        ...failure(`Could not resolve to a PullRequest with the number of ${String(variables[number ?? ""])}.`, "NOT_FOUND", ["repository", "pullRequest"]),
      };
    const size = Number(first);
    if (size > 100) return failure(`Requesting ${size} records on the \`reviewThreads\` connection exceeds the \`first\` limit of 100 records.`);
    const cursor = variables[after ?? ""] ?? null;
    const start = cursor === null ? 0 : positionAfter(cursor);
    if (start === null) return failure(`${JSON.stringify(cursor)} does not appear to be a valid cursor.`);
    const threads = [...state.threads.values()].filter((thread) => thread.pull === key);
    const page = threads.slice(start, start + size);
    const nodes = page.map(node);
    const pageInfo = { hasNextPage: start + size < threads.length, endCursor: page.length === 0 ? null : cursorOf(start + page.length - 1) };
    return { data: { repository: { pullRequest: { reviewThreads: { pageInfo, nodes } } } } };
  };
  const resolveThread = (token: MintedToken, [id]: string[], variables: Variables): GraphqlAnswer => {
    const threadId = String(variables[id ?? ""]);
    const thread = state.threads.get(threadId);
    const repository = thread?.pull.slice(0, thread.pull.lastIndexOf("#"));
    if (thread === undefined || repository === undefined || !tokenReaches(state, token, repository)) {
      return {
        data: { resolveReviewThread: null },
        ...failure(`Could not resolve to a node with the global id of '${threadId}'`, "NOT_FOUND", ["resolveReviewThread"]),
      };
    }
    if (!tokenGrants(token, ["pull_requests", "write"]))
      return { data: { resolveReviewThread: null }, ...failure(FORBIDDEN, "FORBIDDEN", ["resolveReviewThread"]) };
    thread.isResolved = true;
    // Installation tokens act as the App's bot user.
    thread.resolvedBy ??= APP_BOT;
    return { data: { resolveReviewThread: { thread: { id: thread.id, isResolved: true } } } };
  };

  return {
    method: "POST",
    pattern: /^\/graphql$/,
    auth: "token",
    handle: ({ body, token }) => {
      // Authentication let only a live token through; the check narrows the type.
      if (token === undefined) return { status: 401, body: { message: "Bad credentials" } };
      const request = (body ?? {}) as { query?: unknown; variables?: unknown };
      if (typeof request.query !== "string") return { status: 200, body: failure("A query attribute must be specified and must be a string.") };
      const variables = (typeof request.variables === "object" && request.variables !== null ? request.variables : {}) as Variables;
      const all = tokens(request.query);
      const open = all.indexOf("{");
      const kind = open === 0 ? "query" : all[0];
      const operation = all.slice(Math.max(open, 0)).join(" ");
      const threads = kind === "query" ? THREADS.exec(operation) : null;
      if (threads !== null) {
        const node = (thread: StandInThread): unknown => ({
          id: thread.id,
          isResolved: thread.isResolved,
          isOutdated: isOutdated(state, thread),
          comments: { totalCount: thread.commentIds.length, nodes: thread.commentIds.slice(0, 1).map((id) => ({ databaseId: id })) },
        });
        return { status: 200, body: threadsPage(token, threads.slice(1), variables, node) };
      }
      const dismissals = kind === "query" ? DISMISSALS.exec(operation) : null;
      if (dismissals !== null) {
        const [comments = "0", reactions = "0"] = dismissals.slice(6);
        const node = (thread: StandInThread): unknown => ({
          isResolved: thread.isResolved,
          resolvedBy: graphqlUser(thread.resolvedBy),
          comments: {
            nodes: thread.commentIds.slice(0, Number(comments)).flatMap((id) => {
              const comment = state.reviewComments.get(id);
              return comment === undefined ? [] : [dismissalComment(state, comment, Number(reactions))];
            }),
          },
        });
        return { status: 200, body: threadsPage(token, dismissals.slice(1, 6), variables, node) };
      }
      const resolve = kind === "mutation" ? RESOLVE.exec(operation) : null;
      if (resolve !== null) return { status: 200, body: resolveThread(token, resolve.slice(1), variables) };
      return { status: 200, body: failure("The GitHub stand-in answers only the review-thread queries and the resolveReviewThread mutation.") };
    },
  };
}

/** Where the page after `cursor` starts; null for a cursor the stand-in did not hand out. */
function positionAfter(cursor: unknown): number | null {
  const found = typeof cursor === "string" ? /^cursor:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8")) : null;
  return found === null ? null : Number(found[1]) + 1;
}
