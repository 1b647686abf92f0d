import { randomBytes } from "node:crypto";
import type { Annotation, MintedToken, StandInCheckRun, StandInState } from "./github-stand-in.js";
import { APP_SLUG } from "./github-stand-in-threads.js";

/** The conclusions GitHub accepts for a check run (its REST reference). */
const CHECK_RUN_CONCLUSIONS = new Set(["action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"]);

export interface RouteContext {
  readonly params: readonly string[];
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly token: MintedToken | undefined;
}

export interface StandInRoute {
  readonly method: string;
  readonly pattern: RegExp;
  /** `app`: an App JWT; `token`: an installation token (checked against `permission` when scoped). */
  readonly auth: "app" | "token";
  readonly permission?: readonly [string, "read" | "write"];
  handle(context: RouteContext): { status: number; body: unknown; headers?: Record<string, string> };
}

const SEGMENT = "([^/]+)";
export const repoPath = (rest: string): RegExp => new RegExp(`^/repos/${SEGMENT}/${SEGMENT}${rest}$`);
type Body = Record<string, unknown>;

/** The endpoints the stand-in serves, with GitHub's validation where reviewbot could get it wrong. */
export function standInRoutes(state: StandInState, onMint: (token: MintedToken) => void): StandInRoute[] {
  const checkRunJson = (run: StandInCheckRun): unknown => ({
    id: run.id,
    name: run.name,
    head_sha: run.head_sha,
    external_id: run.external_id,
    status: run.status,
    conclusion: run.conclusion,
    app: { id: state.appId },
    output: { ...run.output, annotations_count: run.annotations.length },
  });
  const applyOutput = (run: StandInCheckRun, body: Body): string | null => {
    const output = body.output as { title?: string; summary?: string; text?: string; annotations?: Annotation[] } | undefined;
    if (output === undefined) return null;
    if (typeof output.title !== "string" || typeof output.summary !== "string") return "output needs title and summary";
    if (output.summary.length > 65_535 || (output.text ?? "").length > 65_535) return "summary or text too long";
    const annotations = output.annotations ?? [];
    if (annotations.length > 50) return "at most 50 annotations per request";
    for (const a of annotations) {
      if (typeof a.path !== "string" || !Number.isInteger(a.start_line) || !Number.isInteger(a.end_line)) return "annotation needs path, start_line, end_line";
      if (!["failure", "warning", "notice"].includes(a.annotation_level)) return "bad annotation_level";
      if (a.start_column !== undefined && a.start_line !== a.end_line) return "columns only on one line";
      if (Buffer.byteLength(a.message) > 65_536) return "message too long";
    }
    run.output = { title: output.title, summary: output.summary, text: output.text ?? null };
    run.annotations.push(...annotations);
    return null;
  };
  const invalid = (message: string): { status: number; body: unknown } => ({ status: 422, body: { message } });

  return [
    {
      // The App the JWT signs for (GitHub: "You must use a JWT to access this endpoint").
      method: "GET",
      pattern: /^\/app$/,
      auth: "app",
      handle: () => ({
        status: 200,
        body: { id: state.appId, slug: APP_SLUG, node_id: `A_${String(state.appId)}`, name: APP_SLUG, owner: { login: "octo", id: 1, type: "Organization" } },
      }),
    },
    {
      // A public account by login, case-insensitively, as GitHub serves it: an App's bot user is `<slug>[bot]`.
      method: "GET",
      pattern: /^\/users\/([^/]+)$/,
      auth: "token",
      handle: ({ params }) => {
        const user = state.users.get((params[0] ?? "").toLowerCase());
        return user === undefined
          ? { status: 404, body: { message: "Not Found" } }
          : { status: 200, body: { ...user, node_id: `U_${String(user.id)}`, site_admin: false } };
      },
    },
    {
      // GitHub's revocation: the token authenticates its own end; afterwards it opens nothing (API or git).
      method: "DELETE",
      pattern: /^\/installation\/token$/,
      auth: "token",
      handle: ({ token }) => {
        if (token !== undefined) {
          state.tokens.delete(token.token);
          state.revoked.push(token.token);
        }
        return { status: 204, body: null };
      },
    },
    {
      method: "POST",
      pattern: /^\/app\/installations\/(\d+)\/access_tokens$/,
      auth: "app",
      handle: ({ params, body }) => {
        const request = (body ?? {}) as { repository_ids?: number[]; permissions?: Record<string, string> };
        const token: MintedToken = {
          token: `ghs_${randomBytes(18).toString("hex")}`,
          installationId: Number(params[0]),
          expiresAt: Date.now() + 3600_000,
          repositoryIds: request.repository_ids,
          permissions: request.permissions,
        };
        state.tokens.set(token.token, token);
        onMint(token);
        const names = new Map([...state.repositories].map(([name, id]) => [id, name.split("/")[1]]));
        return {
          status: 201,
          body: {
            token: token.token,
            expires_at: new Date(token.expiresAt).toISOString().replace(/\.\d+Z$/, "Z"),
            permissions: request.permissions ?? { checks: "write", contents: "read", metadata: "read", pull_requests: "write" },
            repository_selection: request.repository_ids === undefined ? "all" : "selected",
            ...(request.repository_ids === undefined ? {} : { repositories: request.repository_ids.map((id) => ({ id, name: names.get(id) })) }),
          },
        };
      },
    },
    {
      method: "GET",
      pattern: repoPath(`/pulls/(\\d+)`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params }) => {
        const pull = state.pulls.get(`${params[0] ?? ""}/${params[1] ?? ""}#${params[2] ?? ""}`);
        if (pull === undefined) return { status: 404, body: { message: "Not Found" } };
        const repoId = state.repositories.get(`${params[0] ?? ""}/${params[1] ?? ""}`);
        return {
          status: 200,
          body: {
            number: pull.number,
            title: pull.title ?? "A pull request",
            body: pull.body ?? null,
            state: pull.state ?? "open",
            draft: pull.draft ?? false,
            updated_at: pull.updatedAt ?? new Date().toISOString(),
            head: { sha: pull.headSha, ref: "feature" },
            base: {
              sha: pull.baseSha,
              ref: pull.baseRef,
              repo: {
                id: repoId,
                default_branch: pull.defaultBranch ?? "main",
                ...(pull.repositoryPrivate === undefined ? {} : { private: pull.repositoryPrivate }),
              },
            },
          },
        };
      },
    },
    {
      method: "GET",
      pattern: repoPath(`/pulls/(\\d+)/files`),
      auth: "token",
      permission: ["pull_requests", "read"],
      handle: ({ params }) => ({ status: 200, body: state.pulls.get(`${params[0] ?? ""}/${params[1] ?? ""}#${params[2] ?? ""}`)?.files ?? [] }),
    },
    {
      method: "GET",
      pattern: repoPath(`/contents/(.+)`),
      auth: "token",
      permission: ["contents", "read"],
      handle: ({ params }) => {
        const content = state.files.get(`${params[0] ?? ""}/${params[1] ?? ""}:${params[2] ?? ""}`);
        if (content === undefined) return { status: 404, body: { message: "Not Found" } };
        return { status: 200, body: { type: "file", path: params[2], encoding: "base64", content: Buffer.from(content).toString("base64") } };
      },
    },
    {
      method: "POST",
      pattern: repoPath(`/check-runs`),
      auth: "token",
      permission: ["checks", "write"],
      handle: ({ params, body }) => {
        const request = (body ?? {}) as Body;
        if (typeof request.name !== "string" || typeof request.head_sha !== "string") return invalid("name and head_sha are required");
        const run: StandInCheckRun = {
          id: state.nextId++,
          repository: `${params[0] ?? ""}/${params[1] ?? ""}`,
          name: request.name,
          head_sha: request.head_sha,
          external_id: typeof request.external_id === "string" ? request.external_id : null,
          status: typeof request.status === "string" ? request.status : "queued",
          conclusion: typeof request.conclusion === "string" ? request.conclusion : null,
          output: { title: null, summary: null, text: null },
          annotations: [],
        };
        const problem = applyOutput(run, request);
        if (problem !== null) return invalid(problem);
        state.checkRuns.set(run.id, run);
        return { status: 201, body: checkRunJson(run) };
      },
    },
    {
      method: "PATCH",
      pattern: repoPath(`/check-runs/(\\d+)`),
      auth: "token",
      permission: ["checks", "write"],
      handle: ({ params, body }) => {
        const run = state.checkRuns.get(Number(params[2]));
        if (run === undefined) return { status: 404, body: { message: "Not Found" } };
        const request = (body ?? {}) as Body;
        if (request.status === "completed" && typeof request.conclusion !== "string") return invalid("conclusion is required to complete");
        // https://docs.github.com/en/rest/checks/runs#update-a-check-run: any other conclusion is a 422.
        if (typeof request.conclusion === "string" && !CHECK_RUN_CONCLUSIONS.has(request.conclusion))
          return invalid("conclusion is not one of the documented values");
        const problem = applyOutput(run, request);
        if (problem !== null) return invalid(problem);
        if (typeof request.status === "string") run.status = request.status;
        if (typeof request.conclusion === "string") {
          run.status = "completed";
          run.conclusion = request.conclusion;
        }
        return { status: 200, body: checkRunJson(run) };
      },
    },
    {
      method: "GET",
      pattern: repoPath(`/check-runs/(\\d+)`),
      auth: "token",
      permission: ["checks", "read"],
      handle: ({ params }) => {
        const run = state.checkRuns.get(Number(params[2]));
        return run === undefined ? { status: 404, body: { message: "Not Found" } } : { status: 200, body: checkRunJson(run) };
      },
    },
    {
      method: "GET",
      pattern: repoPath(`/commits/([0-9a-f]+)/check-runs`),
      auth: "token",
      permission: ["checks", "read"],
      handle: ({ params, query }) => {
        const runs = [...state.checkRuns.values()].filter(
          (run) =>
            run.repository === `${params[0] ?? ""}/${params[1] ?? ""}` &&
            run.head_sha === params[2] &&
            (query.check_name === undefined || run.name === query.check_name),
        );
        return { status: 200, body: { total_count: runs.length, check_runs: runs.reverse().map(checkRunJson) } };
      },
    },
  ];
}
