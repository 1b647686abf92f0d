import { isAppError } from "@reviewbot/core/errors";
import { runGit } from "@reviewbot/overlay/run-git";
import { quote } from "@reviewbot/policy/config-error";
import { GrepOutput, type GrepHit } from "./grep-output.js";
import type { RepoReaderLimits } from "./repo-reader-limits.js";
import { checkRepoPath } from "./repo-path.js";
import { commitOf, LITERAL_PATHSPECS, type RepoSource, type Side } from "./repo-source.js";
import { ToolInputError } from "../tools/tool-input-error.js";

export interface GrepRequest {
  readonly pattern: string;
  readonly side: Side;
  readonly path?: string | undefined;
  readonly regex: boolean;
  readonly caseInsensitive: boolean;
}

export interface GrepResult {
  readonly hits: readonly GrepHit[];
  /** More lines matched than `maxGrepHits`; narrow the pattern or the path. */
  readonly truncated: boolean;
  /** The search ran past `grepDeadlineMs` and was killed: `hits` is what it found by then. */
  readonly timedOut: boolean;
}

/** git grep prints `fatal: -e option, '<pattern>': <regerror>` for a pattern its regex engine rejects. */
const BAD_PATTERN = /^fatal: -e option, /m;

/**
 * Searches the blobs of `side`'s commit with `git grep`: binary files skipped, no textconv, fixed
 * text unless a regex is asked for. A regex runs in git's POSIX engine, which has no JavaScript
 * ReDoS but can still be slow (back-references): the deadline kills git whatever the pattern, and
 * the hits found so far are kept. At the hit cap git is stopped at once.
 */
export async function grepRepo(source: RepoSource, request: GrepRequest, limits: RepoReaderLimits): Promise<GrepResult> {
  // git would split a multi-line pattern into several, and refuses a NUL: one line, said plainly.
  if (/[\0\n\r]/.test(request.pattern)) throw new ToolInputError("grep: the pattern must be one line of text");
  const path = checkRepoPath("grep", request.path ?? "");
  const commit = commitOf(source, request.side);
  const output = new GrepOutput({ prefix: `${commit}:`, maxHits: limits.maxGrepHits, maxTextChars: limits.maxHitChars });
  const syntax = request.regex ? "--extended-regexp" : "--fixed-strings";
  const caseFlags = request.caseInsensitive ? ["--ignore-case"] : [];
  // grep (git 2.39) takes no --end-of-options; the pattern goes behind -e and the commit is a full SHA.
  const args = ["grep", "-I", "--no-textconv", "-n", "-z", "--full-name", "--no-color", syntax, ...caseFlags, "-e", request.pattern, commit, "--"];
  const deadline = Math.min(limits.grepDeadlineMs, source.context.timeoutMs);
  let timedOut = false;
  try {
    await runGit({ ...source.context, timeoutMs: deadline }, source.gitDir, path === "" ? args : [...args, path], {
      env: LITERAL_PATHSPECS,
      okExitCodes: [1],
      onStdout: (chunk) => (output.push(chunk) ? "stop" : undefined),
    });
  } catch (err) {
    if (!isAppError(err)) throw err;
    const stderr = typeof err.details.stderr === "string" ? err.details.stderr : "";
    if (err.code === "GIT_TIMEOUT") timedOut = true;
    else if (request.regex && BAD_PATTERN.test(stderr)) {
      throw new ToolInputError(`grep: git cannot use the pattern as a POSIX extended regular expression: ${quote(stderr.trim(), 200)}`);
    } else throw err;
  }
  return { hits: output.hits, truncated: output.more, timedOut };
}
