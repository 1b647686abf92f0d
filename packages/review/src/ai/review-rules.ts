import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";

/** `.ai/review-rules.md` larger than this is not read at all. */
const MAX_RULES_BYTES = 64 * 1024;

/**
 * The maintainers' `.ai/review-rules.md` in a checkout whose `.ai/` is the trusted one (the
 * default branch's head, never the PR's): null when it is absent, not a regular file (a symlink
 * is not followed), or too large.
 */
export async function readRules(worktree: string): Promise<string | null> {
  const path = join(worktree, ".ai", "review-rules.md");
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isFile() || info.size > MAX_RULES_BYTES) return null;
  return readFile(path, "utf8");
}
