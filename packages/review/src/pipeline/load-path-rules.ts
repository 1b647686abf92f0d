import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { configError, quote, type ConfigError } from "@reviewbot/policy/config-error";
import { MAX_RULE_FILE_BYTES, MAX_RULE_FILES, MAX_RULES_TOTAL_BYTES, parsePathRule, type PathRule } from "@reviewbot/policy/path-rules";

const RULES_DIR = ".ai/rules";
// Names we are willing to print in a report, a log and the model's prompt.
const RULE_NAME = /^[\w.-]+\.md$/;

/** The per-path rules that passed, and one error per rule file left out. */
export interface PathRules {
  readonly rules: readonly PathRule[];
  readonly errors: readonly ConfigError[];
}

/**
 * The maintainers' per-path rules: every `*.md` directly in `.ai/rules/` of a checkout whose `.ai/`
 * is the trusted one (the default branch's head, never the PR's; the caller skips a failed-closed
 * overlay), in name order. A file that is not a regular file (a symlink is not followed), has a
 * name other than letters, digits and `. - _`, is larger than {@link MAX_RULE_FILE_BYTES}, comes
 * past the first {@link MAX_RULE_FILES}, would bring the total past {@link MAX_RULES_TOTAL_BYTES},
 * is not UTF-8 or fails `parsePathRule` is reported by its path and left out; the others are used.
 * Other files and subdirectories of `.ai/rules/` are not rules and are not read.
 */
export async function loadPathRules(worktree: string): Promise<PathRules> {
  const dir = join(worktree, RULES_DIR);
  const info = await lstat(dir).catch(() => null);
  if (info === null) return { rules: [], errors: [] };
  if (!info.isDirectory()) return { rules: [], errors: [configError(RULES_DIR, "is not a directory on the trusted commit")] };
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.name.endsWith(".md") && !entry.isDirectory());
  const names = entries.map((entry) => entry.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rules: PathRule[] = [];
  const errors: ConfigError[] = [];
  let total = 0;
  for (const [index, name] of names.entries()) {
    const path = `${RULES_DIR}/${name}`;
    const refuse = (reason: string) => errors.push(configError(RULE_NAME.test(name) ? path : `${RULES_DIR}/${quote(name)}`, `${reason}; left out`));
    const file = await lstat(join(dir, name)).catch(() => null);
    if (!RULE_NAME.test(name)) refuse("has a name other than letters, digits, . - and _");
    else if (file === null || !file.isFile()) refuse("is not a regular file on the trusted commit");
    else if (index >= MAX_RULE_FILES) refuse(`comes after the first ${MAX_RULE_FILES} rule files (by name)`);
    else if (file.size > MAX_RULE_FILE_BYTES) refuse(`is ${file.size} bytes; at most ${MAX_RULE_FILE_BYTES} are read`);
    else if (total + file.size > MAX_RULES_TOTAL_BYTES) refuse(`would bring the rule files past ${MAX_RULES_TOTAL_BYTES} bytes together`);
    else {
      total += file.size;
      const text = decode(await readFile(join(dir, name)));
      const parsed = text === null ? null : parsePathRule(path, text);
      if (parsed === null) refuse("is not valid UTF-8");
      else if (parsed.ok) rules.push(parsed.value);
      else errors.push(...parsed.errors.map((error) => ({ ...error, message: `${error.message}; left out` })));
    }
  }
  return { rules, errors };
}

function decode(bytes: Buffer): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
