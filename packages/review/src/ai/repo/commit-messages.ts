import { runGit } from "@reviewbot/overlay/run-git";
import type { RepoSource } from "./repo-source.js";

/** The most commits, and the most bytes of their messages, read for the model. */
const MAX_COMMITS = 50;
const MAX_BYTES = 64 * 1024;

/**
 * The PR's commit messages (merge base to head, newest first), read from the job's mirror: text
 * the PR's author wrote, so the caller wraps it as untrusted data. Cut at the limits, not failed.
 */
export async function readCommitMessages(source: RepoSource): Promise<string> {
  const { stdout } = await runGit(
    source.context,
    source.gitDir,
    ["log", "--no-merges", "--no-color", `--max-count=${MAX_COMMITS}`, "--format=%B%x00", "--end-of-options", `${source.fromSha}..${source.headSha}`],
    { maxOutputBytes: MAX_BYTES * 4 },
  );
  return stdout
    .subarray(0, MAX_BYTES)
    .toString("utf8")
    .split("\0")
    .map((message) => message.trim())
    .filter((message) => message !== "")
    .join("\n---\n");
}
