import { randomUUID } from "node:crypto";

export const BASE_SHA = "b".repeat(40);

/** A 40-hex head SHA that differs per `n`. */
export function headSha(n: number): string {
  return n.toString(16).padStart(40, "0");
}

export function deliveryId(): string {
  return randomUUID();
}

let clock = Date.parse("2024-05-01T00:00:00Z");

/** A later `updated_at` on every call, in GitHub's whole-second format: each event of a PR is newer. */
export function nextUpdatedAt(): string {
  clock += 1000;
  return new Date(clock).toISOString().replace(".000Z", "Z");
}

/** A `pull_request` payload as GitHub sends it (trimmed to what matters plus some noise). */
export function pullRequestPayload(options: {
  action?: string;
  installationId?: number;
  repositoryId?: number;
  repository?: string;
  number?: number;
  head?: string;
  draft?: boolean;
  state?: string;
  user?: { login: string; type: string };
  /** The PR's `updated_at`; a later one than any before unless given. */
  updatedAt?: string;
}): Record<string, unknown> {
  return {
    action: options.action ?? "opened",
    number: options.number ?? 1,
    installation: { id: options.installationId ?? 7, node_id: "MDIz" },
    repository: {
      id: options.repositoryId ?? 100,
      full_name: options.repository ?? "octo/hello",
      private: false,
      owner: { login: "octo" },
      default_branch: "main",
    },
    sender: { login: "alice", type: "User" },
    pull_request: {
      number: options.number ?? 1,
      state: options.state ?? "open",
      draft: options.draft ?? false,
      title: "Add a feature",
      body: "Please review",
      created_at: "2024-04-30T12:00:00Z",
      updated_at: options.updatedAt ?? nextUpdatedAt(),
      user: options.user ?? { login: "alice", type: "User" },
      head: { sha: options.head ?? headSha(1), ref: "feature", repo: { id: 555, full_name: "fork/hello" } },
      base: { sha: BASE_SHA, ref: "main", repo: { id: options.repositoryId ?? 100 } },
    },
  };
}

/** An `issue_comment` payload on a PR. */
export function commentPayload(body: string, association: string): Record<string, unknown> {
  return {
    action: "created",
    installation: { id: 7 },
    repository: { id: 100, full_name: "octo/hello" },
    issue: { number: 1, state: "open", pull_request: { url: "https://api.github.com/repos/octo/hello/pulls/1" } },
    comment: { id: 1, body, author_association: association, user: { login: "carol", type: "User" } },
  };
}
