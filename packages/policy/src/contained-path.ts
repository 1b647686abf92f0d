import { fail, quote, type CheckResult } from "./config-error.js";
import { findUnsafeCharacter } from "./unsafe-text.js";

/** Where a path must stay: under the trusted `.ai/` directory, or anywhere in the worktree. */
export type PathBase = ".ai" | ".";

// Segments no helper path may pass through, compared case-insensitively because a checkout on a
// case-insensitive filesystem (or a tool that folds case) treats `.GIT` as `.git`.
const FORBIDDEN_SEGMENTS: ReadonlyMap<string, string> = new Map([
  [".git", "reaches into .git/ (repository metadata and hooks)"],
  ["node_modules", "reaches into node_modules/ (installed code, not the reviewed tree)"],
]);

const ESCAPES: Record<PathBase, string> = {
  ".ai": "leaves .ai/ after normalisation",
  ".": "leaves the worktree after normalisation",
};

/**
 * Normalises a repository-relative POSIX path (`./.ai/a/../b.sh` → `.ai/b.sh`) and checks that it
 * stays under `base`. The check is lexical: the caller must use the returned form, which holds no
 * `.` or `..`, so that a symlink in the PR tree cannot turn a `..` into a different directory.
 * Under `.ai`, the result is `.ai` itself or a path below it.
 */
export function normaliseContainedPath(value: string, field: string, base: PathBase): CheckResult<string> {
  const reason = syntaxProblem(value);
  if (reason !== undefined) return fail(field, `${quote(value)} ${reason}`);
  const kept: string[] = [];
  for (const segment of value.split("/")) {
    if (segment === ".") continue;
    if (segment !== "..") kept.push(segment);
    else if (kept.pop() === undefined) return fail(field, `${quote(value)} ${ESCAPES[base]}`);
  }
  const normalised = kept.length === 0 ? "." : kept.join("/");
  if (base === ".ai" && kept[0] !== ".ai") {
    return fail(field, `${quote(value)} ${ESCAPES[base]} (to ${quote(normalised)})`);
  }
  return { ok: true, value: normalised };
}

function syntaxProblem(value: string): string | undefined {
  const unsafe = findUnsafeCharacter(value);
  if (unsafe !== undefined) return unsafe;
  if (value === "") return "is empty";
  // Some tools treat a backslash as a separator (Windows semantics); refuse rather than guess.
  if (value.includes("\\")) return "contains a backslash; use / as the separator";
  if (value.startsWith("/")) return "is an absolute path";
  if (value.startsWith("~")) return "starts with ~ (a home directory)";
  const segments = value.split("/");
  if (segments.includes("")) return "contains an empty path segment (// or a trailing /)";
  for (const segment of segments) {
    const forbidden = FORBIDDEN_SEGMENTS.get(segment.toLowerCase());
    if (forbidden !== undefined) return forbidden;
  }
  return undefined;
}
