import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { runGit, type GitContext } from "@reviewbot/overlay/run-git";
import type { SuiteCase } from "./read-suite.js";

/** A case as a local repository: `refs/heads/base` and `refs/heads/head`, and the PR's renames. */
export interface MaterialisedCase {
  readonly gitDir: string;
  /** Base path → head path of each file the PR renamed (git's rename detection, `-M`). */
  readonly renames: ReadonlyMap<string, string>;
}

// Fixed identity and dates: the same case gives the same commits, run after run.
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: "reviewbot eval",
  GIT_AUTHOR_EMAIL: "eval@reviewbot.invalid",
  GIT_COMMITTER_NAME: "reviewbot eval",
  GIT_COMMITTER_EMAIL: "eval@reviewbot.invalid",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};

/**
 * Makes the case's repository under `into` (an empty directory of ours). A tree case: `base/`
 * committed, `pr.patch` applied with `git apply --index`, committed. A git case: both commits
 * fetched from its URL by sha. Every git call is the hardened one (no hooks, no global config).
 */
export async function materialiseCase(suiteCase: SuiteCase, into: string, git: GitContext): Promise<MaterialisedCase> {
  const gitDir = join(into, "repo.git");
  const workTree = join(into, "work");
  await mkdir(workTree, { recursive: true });
  await runGit(git, gitDir, ["init", "--quiet"]);
  const { source } = suiteCase.manifest;
  if (source.kind === "tree") {
    await cp(join(suiteCase.dir, "base"), workTree, { recursive: true, errorOnExist: true, force: false }).catch((err: unknown) => {
      // A case may add every file it has: no base/ is an empty base.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    });
    await commitAll(git, gitDir, workTree, "base");
    // Run inside the work tree: from anywhere else git apply skips every path as outside it.
    await runGit({ ...git, cwd: workTree }, gitDir, ["apply", "--index", "--binary", join(suiteCase.dir, "pr.patch")], { workTree });
    await commitAll(git, gitDir, workTree, "head");
  } else {
    await runGit(git, gitDir, ["fetch", "--quiet", "--no-tags", source.url, source.base, source.head]);
    await runGit(git, gitDir, ["update-ref", "refs/heads/base", source.base]);
    await runGit(git, gitDir, ["update-ref", "refs/heads/head", source.head]);
  }
  return { gitDir, renames: await renamesOf(git, gitDir) };
}

async function commitAll(git: GitContext, gitDir: string, workTree: string, branch: string): Promise<void> {
  await runGit(git, gitDir, ["add", "--all"], { workTree });
  // Only the base may be empty: a head identical to it means the patch applied nothing.
  const empty = branch === "base" ? ["--allow-empty"] : [];
  await runGit(git, gitDir, ["commit", "--quiet", ...empty, "--no-verify", "-m", branch], { workTree, env: COMMIT_ENV });
  await runGit(git, gitDir, ["branch", "--force", branch, "HEAD"]);
}

async function renamesOf(git: GitContext, gitDir: string): Promise<Map<string, string>> {
  const { stdout } = await runGit(git, gitDir, ["diff", "--name-status", "-M", "-z", "refs/heads/base", "refs/heads/head"]);
  const fields = stdout.toString("utf8").split("\0");
  const renames = new Map<string, string>();
  for (let index = 0; index < fields.length; index += 1) {
    const status = fields[index] ?? "";
    if (status.startsWith("R") || status.startsWith("C")) {
      const [from, to] = [fields[index + 1], fields[index + 2]];
      if (status.startsWith("R") && from !== undefined && to !== undefined) renames.set(from, to);
      index += 2;
    } else if (status !== "") index += 1;
  }
  return renames;
}
