import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Upstream, WorkTreeWriter } from "../support/git-fixture.js";
import { createReviewRepo, helperEntry, type HelperEntry } from "../support/review-repos.js";
import { INSTALLATION_ID, type Fleet } from "./fleet-harness.js";

/** A PR hosted by the stand-ins: the repository on the git server, the PR on the API stand-in. */
export interface HostedPull {
  readonly repository: string;
  readonly repositoryId: number;
  readonly number: number;
  readonly upstream: Upstream;
  readonly baseSha: string;
  headSha: string;
  readonly text?: { readonly title: string; readonly body: string };
}

export interface HostedPullOptions {
  readonly repository: string;
  readonly repositoryId: number;
  readonly number: number;
  readonly helpers: readonly HelperEntry[];
  readonly fork: (tree: WorkTreeWriter) => void;
  /** `.ai/review-config.json` on the base (the default branch), as written. */
  readonly settings?: string;
  /** The PR's title and description as the API stand-in serves them. */
  readonly text?: { readonly title: string; readonly body: string };
}

/** Where a PR is hosted: a scratch directory, the git server's root and the API stand-in (a fleet, or a composed stack). */
export type PullHost = Pick<Fleet, "root" | "gitRoot" | "github">;

/** Creates the repository under the git server's root with `refs/pull/<n>/head`, as GitHub keeps it. */
export function hostPull(fleet: PullHost, options: HostedPullOptions): HostedPull {
  const root = join(fleet.root, "repos", options.repository.replace("/", "--"));
  mkdirSync(root, { recursive: true });
  const upstream = createReviewRepo(root, {
    helpers: options.helpers,
    fork: options.fork,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  const served = join(fleet.gitRoot, `${options.repository}.git`);
  mkdirSync(dirname(served), { recursive: true });
  symlinkSync(upstream.dir, served);
  const pull: HostedPull = {
    repository: options.repository,
    repositoryId: options.repositoryId,
    number: options.number,
    upstream,
    baseSha: upstream.rev("main"),
    headSha: upstream.rev("fork"),
    ...(options.text === undefined ? {} : { text: options.text }),
  };
  publishHead(fleet, pull);
  return pull;
}

/** Another PR on `first`'s repository: its own branch off the same base with one commit, `refs/pull/<number>/head`. */
export function addPull(fleet: PullHost, first: HostedPull, number: number, edit: (tree: WorkTreeWriter) => void): HostedPull {
  const branch = `pull-${number}`;
  first.upstream.git(["branch", "--force", branch, first.baseSha]);
  const pull: HostedPull = { ...first, number, headSha: first.upstream.commitOn(branch, edit, `PR ${number}`) };
  publishHead(fleet, pull);
  return pull;
}

/** The PR author pushes: a new commit on the fork, `refs/pull/<n>/head` moves; returns the new head. */
export function pushToPull(fleet: PullHost, pull: HostedPull, edit: (tree: WorkTreeWriter) => void): string {
  pull.headSha = pull.upstream.commitOn("fork", edit, "push to the PR");
  publishHead(fleet, pull);
  return pull.headSha;
}

/** The PR author rewrites the PR: the fork restarts from the base with one new commit (a force-push); returns the new head. */
export function forcePushToPull(fleet: PullHost, pull: HostedPull, edit: (tree: WorkTreeWriter) => void): string {
  pull.upstream.git(["branch", "--force", "fork", pull.baseSha]);
  return pushToPull(fleet, pull, edit);
}

function publishHead(fleet: PullHost, pull: HostedPull): void {
  pull.upstream.git(["update-ref", `refs/pull/${pull.number}/head`, pull.headSha]);
  const hunks = diffHunks(pull.upstream.git(["diff", "--unified=3", `${pull.baseSha}...${pull.headSha}`]));
  fleet.github.setPullRequest(pull.repository, { number: pull.number, headSha: pull.headSha, baseSha: pull.baseSha, baseRef: "main", hunks, ...pull.text });
}

/** Head-side extents of every hunk per path, as GitHub places review comments. */
function diffHunks(patch: string): Record<string, [number, number][]> {
  const hunks: Record<string, [number, number][]> = {};
  let path = "";
  for (const line of patch.split("\n")) {
    const file = /^\+\+\+ b\/(.*)$/.exec(line);
    if (file?.[1] !== undefined) path = file[1];
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk !== null && path !== "") {
      const start = Number(hunk[1]);
      (hunks[path] ??= []).push([start, start + Number(hunk[2] ?? "1") - 1]);
    }
  }
  return hunks;
}

/** A `pull_request` delivery body for the PR's current head, sent now (its `updated_at`). */
export function pullRequestEvent(
  pull: HostedPull,
  action: string,
  overrides: { draft?: boolean; userType?: string; labels?: readonly string[] } = {},
): unknown {
  return {
    action,
    installation: { id: INSTALLATION_ID },
    repository: { id: pull.repositoryId, full_name: pull.repository, default_branch: "main" },
    pull_request: {
      number: pull.number,
      state: "open",
      draft: overrides.draft ?? false,
      labels: (overrides.labels ?? []).map((name) => ({ name })),
      updated_at: new Date().toISOString(),
      user: { login: "contributor", type: overrides.userType ?? "User" },
      head: { sha: pull.headSha, ref: "fork" },
      base: { sha: pull.baseSha, ref: "main" },
    },
  };
}

/** Where {@link hostFindingPulls} hosts each named PR. */
export interface FindingPullsOptions<Name extends string> {
  readonly repository: (name: Name) => string;
  readonly repositoryId: (name: Name) => number;
  readonly firstNumber: number;
  /** The PR whose helper sleeps 4 s before it prints (a review that is still running when something fails). */
  readonly slow: Name;
  /** The file each PR adds and its finding names. */
  readonly file: string;
}

/** One PR per name, each in a repository of its own, with a helper that prints one finding: `<file>:1: finding of <name>`. */
export function hostFindingPulls<Name extends string>(fleet: PullHost, names: readonly Name[], options: FindingPullsOptions<Name>): Map<Name, HostedPull> {
  const pulls = new Map<Name, HostedPull>();
  for (const [index, name] of names.entries()) {
    const pause = name === options.slow ? "sleep 4; " : "";
    pulls.set(
      name,
      hostPull(fleet, {
        repository: options.repository(name),
        repositoryId: options.repositoryId(name),
        number: options.firstNumber + index,
        helpers: [helperEntry("lint", ["sh", "-c", `${pause}echo "${options.file}:1: finding of ${name}"`], { format: "errorformat", timeout_seconds: 60 })],
        fork: (tree) => {
          tree.write(options.file, `export const name = "${name}";\n`);
        },
      }),
    );
  }
  return pulls;
}
