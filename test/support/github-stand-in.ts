import type { KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tokenGrants, tokenReaches } from "./github-stand-in-access.js";
import { permissionRoute, setRole, type StandInRole } from "./github-stand-in-dismissals.js";
import { graphqlRoute } from "./github-stand-in-graphql.js";
import { checkAppJwt } from "./github-stand-in-jwt.js";
import { addIssueComment, issueCommentRoutes, type StandInIssueComment } from "./github-stand-in-issue-comments.js";
import { hookDeliveryRoutes } from "./github-stand-in-hook-deliveries.js";
import { reactionRoutes, type StandInReaction } from "./github-stand-in-reactions.js";
import { addReview, reviewRoutes, type ReviewRequest } from "./github-stand-in-reviews.js";
import { standInRoutes, type StandInRoute } from "./github-stand-in-routes.js";
import {
  addReply,
  APP_BOT,
  openThread,
  threadOf,
  type FileAt,
  type StandInReviewComment,
  type StandInThread,
  type StandInUser,
} from "./github-stand-in-threads.js";

export { generateTestAppKey } from "./github-stand-in-jwt.js";

/** One request the stand-in received, in arrival order. */
export interface RecordedRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly authorization: string | undefined;
  status: number;
}

export interface MintedToken {
  readonly token: string;
  readonly installationId: number;
  readonly expiresAt: number;
  /** What the App asked for; absent fields mean "everything the installation has". */
  readonly repositoryIds: readonly number[] | undefined;
  readonly permissions: Readonly<Record<string, string>> | undefined;
  /** Who it posts as: the App's bot user unless set (a workflow's GITHUB_TOKEN posts as github-actions[bot]). */
  readonly user?: StandInUser;
}

export interface Annotation {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly annotation_level: string;
  readonly message: string;
  readonly title?: string;
  readonly start_column?: number;
  readonly end_column?: number;
}

export interface StandInCheckRun {
  readonly id: number;
  readonly repository: string;
  readonly name: string;
  readonly head_sha: string;
  readonly external_id: string | null;
  status: string;
  conclusion: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  readonly annotations: Annotation[];
}

export interface StandInReview {
  readonly id: number;
  readonly body: string;
  readonly event: string;
  readonly commit_id: string | undefined;
  readonly comments: readonly Record<string, unknown>[];
  readonly user: StandInUser;
}

export interface PullRequestFixture {
  readonly number: number;
  readonly state?: "open" | "closed";
  readonly draft?: boolean;
  readonly headSha: string;
  readonly baseSha: string;
  readonly baseRef: string;
  /** The repository's default branch; `main` unless set. */
  readonly defaultBranch?: string;
  /** The PR's `updated_at`; unless set, the time of each request (a PR is never older than now's view of it). */
  readonly updatedAt?: string;
  /** Head-side line ranges of the diff per path: review comments must fall inside one. */
  readonly hunks?: Readonly<Record<string, readonly (readonly [number, number])[]>>;
  readonly files?: readonly { filename: string; status: string; patch?: string }[];
  /** Whether the base repository is private, as GitHub says it (omitted unless set). */
  readonly repositoryPrivate?: boolean;
  /** The PR's title and description (untrusted text the AI review shows the model). */
  readonly title?: string;
  readonly body?: string;
}

/** A scripted answer: `status` with `body` as it is (a malformed answer, say). */
export interface ScriptedAnswer {
  readonly status: number;
  readonly body: unknown;
}

export type FaultKind = "502" | "secondary-rate-limit" | "429" | ScriptedAnswer;

export interface StandInState {
  readonly appId: number;
  readonly publicKey: KeyObject;
  /** `owner/name` → repository id. */
  readonly repositories: ReadonlyMap<string, number>;
  readonly tokens: Map<string, MintedToken>;
  /** Tokens revoked through `DELETE /installation/token`, in order. */
  readonly revoked: string[];
  readonly checkRuns: Map<number, StandInCheckRun>;
  readonly pulls: Map<string, PullRequestFixture>;
  readonly reviews: Map<string, StandInReview[]>;
  readonly files: Map<string, string>;
  /** Review comments (the reviews' and replies) by id. */
  readonly reviewComments: Map<number, StandInReviewComment>;
  /** Comments on PRs' conversations (issue comments) by id. */
  readonly issueComments: Map<number, StandInIssueComment>;
  /** Review threads by GraphQL node id, in the order they were opened. */
  readonly threads: Map<string, StandInThread>;
  /** Reactions to comments, in the order they were made. */
  readonly reactions: StandInReaction[];
  /** Accounts `GET /users/{login}` knows, by lower-case login: the App's bot user and everyone who posted. */
  readonly users: Map<string, StandInUser>;
  /** Roles in repositories by `owner/name:login` (lower-case login); without one, see `roleOf`. */
  readonly roles: Map<string, StandInRole>;
  /** How the stand-in reads files at commits, to tell outdated threads (see `isOutdated`). */
  readonly fileAt: FileAt | undefined;
  nextId: number;
}

export interface GitHubStandIn {
  /** Base URL to use as GITHUB_API_URL. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly state: StandInState;
  /** Tokens in the order they were minted. */
  readonly minted: MintedToken[];
  setPullRequest(repository: string, pull: PullRequestFixture): void;
  setFile(repository: string, path: string, content: string): void;
  /** Opens a review thread as someone else (a human's own review comment); returns the comment id. */
  startThread(
    repository: string,
    pullNumber: number,
    comment: StandInUser & { readonly commitId: string; readonly path: string; readonly line: number; readonly body: string },
  ): number;
  /** Replies to the thread holding `commentId` as someone else (a human); returns the reply's id. */
  reply(repository: string, pullNumber: number, commentId: number, reply: StandInUser & { readonly body: string }): number;
  /** Gives `user` a role in `repository`: the association on their comments and their permission. */
  setRole(repository: string, user: StandInUser, role: StandInRole): void;
  /** `user` reacts to a review comment (`-1` is 👎), as in GitHub's UI: no webhook is sent. */
  react(repository: string, pullNumber: number, commentId: number, user: StandInUser, content: string): void;
  /** `user` resolves the thread holding `commentId`, as in GitHub's UI (the test delivers the webhook if it wants one). */
  resolveThread(repository: string, pullNumber: number, commentId: number, user: StandInUser): string;
  /** Posts a review as someone else (another App's bot, say), checked as GitHub checks ours; returns its id. */
  review(repository: string, pullNumber: number, user: StandInUser, review: ReviewRequest): number;
  /** Comments on the PR's conversation as someone else (a human, another App's bot); returns the comment's id. */
  issueComment(repository: string, pullNumber: number, user: StandInUser, body: string): number;
  /** Answers the next `count` requests matching `method` and `pathPattern` with a fault. */
  fail(method: string, pathPattern: RegExp, count: number, kind: FaultKind): void;
  /** Drops every scripted fault not yet used. */
  clearFaults(): void;
  /** Requests other than token minting, as `METHOD /path`. */
  calls(method?: string, pathPattern?: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

const SECONDARY_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000.";

/**
 * A local HTTP server standing in for api.github.com, for the endpoints reviewbot uses. It checks
 * credentials as GitHub does (App JWT for `/app/...`, a token it minted for everything else, a
 * scoped token only for its repositories and permissions), keeps check runs with their
 * accumulated annotations, PR reviews and their review threads in memory, serves the two GraphQL
 * operations on those threads, records every request, and can answer with scripted faults (502,
 * secondary rate limit, 429, any status and body). `fileAt` lets it tell outdated threads.
 */
export async function startGitHubStandIn(options: {
  readonly appId: number;
  readonly publicKey: KeyObject;
  readonly repositories: Readonly<Record<string, number>>;
  readonly fileAt?: FileAt;
  /** The address to listen on: 127.0.0.1 unless a container network's gateway must reach it. */
  readonly host?: string;
}): Promise<GitHubStandIn> {
  const state: StandInState = {
    appId: options.appId,
    publicKey: options.publicKey,
    repositories: new Map(Object.entries(options.repositories)),
    tokens: new Map(),
    revoked: [],
    checkRuns: new Map(),
    pulls: new Map(),
    reviews: new Map(),
    files: new Map(),
    reviewComments: new Map(),
    issueComments: new Map(),
    threads: new Map(),
    reactions: [],
    users: new Map([[APP_BOT.login, APP_BOT]]),
    roles: new Map(),
    fileAt: options.fileAt,
    nextId: 1000,
  };
  const requests: RecordedRequest[] = [];
  const minted: MintedToken[] = [];
  const faults: { method: string; pattern: RegExp; remaining: number; kind: FaultKind }[] = [];
  const routes = [
    ...standInRoutes(state, (token) => minted.push(token)),
    ...reviewRoutes(state),
    ...issueCommentRoutes(state),
    ...reactionRoutes(state),
    ...hookDeliveryRoutes(state),
    permissionRoute(state),
    graphqlRoute(state),
  ];

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      send(response, 500, { message: String(error) });
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const raw = await readBody(request);
    const record: RecordedRequest = {
      at: Date.now(),
      method: request.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: raw === "" ? undefined : (JSON.parse(raw) as unknown),
      authorization: request.headers.authorization,
      status: 0,
    };
    requests.push(record);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      record.status = status;
      send(response, status, body, headers);
    };
    const fault = faults.find((f) => f.remaining > 0 && f.method === record.method && f.pattern.test(record.path));
    if (fault !== undefined) {
      fault.remaining--;
      if (typeof fault.kind === "object") {
        reply(fault.kind.status, fault.kind.body);
      } else if (fault.kind === "502") {
        reply(502, { message: "Server Error" });
      } else {
        const documentation = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";
        const headers = { "retry-after": "1", "x-ratelimit-remaining": "4000" };
        reply(fault.kind === "429" ? 429 : 403, { message: SECONDARY_MESSAGE, documentation_url: documentation }, headers);
      }
      return;
    }
    const match = findRoute(routes, record.method, record.path);
    if (match === null) {
      reply(404, { message: "Not Found" });
      return;
    }
    const denied = authenticate(state, match.route, request.headers.authorization, match.params);
    if (denied !== null) {
      reply(denied.status, { message: denied.message });
      return;
    }
    const token = (request.headers.authorization ?? "").replace(/^token /i, "");
    const result = match.route.handle({ params: match.params, query: record.query, body: record.body, token: state.tokens.get(token) });
    reply(result.status, result.body, result.headers);
  }

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    state,
    minted,
    setPullRequest: (repository, pull) => state.pulls.set(`${repository}#${pull.number}`, pull),
    setFile: (repository, path, content) => state.files.set(`${repository}:${path}`, content),
    startThread: (repository, pullNumber, { login, id, type, commitId, path, line, body }) =>
      openThread(state, `${repository}#${pullNumber}`, { reviewId: null, commitId, path, line, side: "RIGHT", body, user: known(state, { login, id, type }) })
        .id,
    reply: (repository, pullNumber, commentId, { login, id, type, body }) => {
      const added = addReply(state, `${repository}#${pullNumber}`, commentId, known(state, { login, id, type }), body);
      if (added === null) throw new Error(`comment ${commentId} is not on ${repository}#${pullNumber}`);
      return added.id;
    },
    setRole: (repository, user, role) => {
      setRole(state, repository, known(state, user).login, role);
    },
    react: (repository, pullNumber, commentId, user, content) => {
      const comment = state.reviewComments.get(commentId);
      if (comment?.pull !== `${repository}#${pullNumber}`) throw new Error(`comment ${commentId} is not on ${repository}#${pullNumber}`);
      // One reaction of each content per user, as on GitHub.
      const same = (r: StandInReaction): boolean => r.subject === "review" && r.commentId === commentId && r.content === content && r.user.id === user.id;
      if (!state.reactions.some(same)) state.reactions.push({ id: state.nextId++, subject: "review", commentId, content, user: known(state, user) });
    },
    resolveThread: (repository, pullNumber, commentId, user) => {
      const thread = threadOf(state, `${repository}#${pullNumber}`, commentId);
      if (thread === undefined) throw new Error(`comment ${commentId} is not on ${repository}#${pullNumber}`);
      thread.isResolved = true;
      thread.resolvedBy = known(state, user);
      return thread.id;
    },
    review: (repository, pullNumber, user, review) => {
      const posted = addReview(state, `${repository}#${pullNumber}`, known(state, user), review);
      if (posted.status !== 200) throw new Error(`GitHub would refuse this review (${String(posted.status)})`);
      return (posted.body as StandInReview).id;
    },
    issueComment: (repository, pullNumber, user, body) => {
      const posted = addIssueComment(state, `${repository}#${pullNumber}`, known(state, user), body);
      if (posted.status !== 201) throw new Error(`GitHub would refuse this comment (${String(posted.status)})`);
      return (posted.body as { id: number }).id;
    },
    fail: (method, pattern, count, kind) => faults.push({ method, pattern, remaining: count, kind }),
    clearFaults: () => {
      faults.length = 0;
    },
    calls: (method, pattern) =>
      requests.filter((r) => !r.path.startsWith("/app/") && (method === undefined || r.method === method) && (pattern === undefined || pattern.test(r.path))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Records `user` as an account `GET /users/{login}` serves; one login is one id, as on GitHub. */
function known(state: StandInState, user: StandInUser): StandInUser {
  const seen = state.users.get(user.login.toLowerCase());
  if (seen !== undefined && seen.id !== user.id) throw new Error(`login ${user.login} already has id ${String(seen.id)}`);
  state.users.set(user.login.toLowerCase(), user);
  return user;
}

function findRoute(routes: readonly StandInRoute[], method: string, path: string): { route: StandInRoute; params: string[] } | null {
  for (const route of routes) {
    const found = route.method === method ? route.pattern.exec(path) : null;
    if (found !== null) return { route, params: found.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return null;
}

function authenticate(
  state: StandInState,
  route: StandInRoute,
  authorization: string | undefined,
  params: readonly string[],
): { status: number; message: string } | null {
  const [scheme = "", credential = ""] = (authorization ?? "").split(" ");
  if (route.auth === "app") {
    if (scheme.toLowerCase() !== "bearer") return { status: 401, message: "A JSON web token could not be decoded" };
    const problem = checkAppJwt(credential, state.publicKey, state.appId);
    return problem === null ? null : { status: 401, message: problem };
  }
  const token = scheme.toLowerCase() === "token" ? state.tokens.get(credential) : undefined;
  if (token === undefined || token.expiresAt <= Date.now()) return { status: 401, message: "Bad credentials" };
  // Repository routes only (`/repos/{owner}/{repo}/…`); `/installation/token` and `/graphql` name no repository.
  if (params.length >= 2 && !tokenReaches(state, token, `${params[0] ?? ""}/${params[1] ?? ""}`)) return { status: 404, message: "Not Found" };
  if (route.permission !== undefined && !tokenGrants(token, route.permission)) return { status: 403, message: "Resource not accessible by integration" };
  return null;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (status === 204) {
    response.writeHead(status, headers).end();
    return;
  }
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  response.end(JSON.stringify(body));
}
