import { z } from "zod";
import { configError, fail, formatPath, quote, type CheckResult, type ConfigError } from "./config-error.js";
import { Glob } from "./glob.js";

/** The most `.ai/rules/*.md` files read; the ones past it (by name) are reported and left out. */
export const MAX_RULE_FILES = 20;
/** The largest rule file read, in UTF-8 bytes. */
export const MAX_RULE_FILE_BYTES = 8 * 1024;
/** The most bytes all rule files read may hold together; a file that would pass it is reported and left out. */
export const MAX_RULES_TOTAL_BYTES = 32 * 1024;
/** The most globs one rule file's `paths` may list. */
export const MAX_RULE_GLOBS = 20;
// The opening `---`, `paths:`, a block list of MAX_RULE_GLOBS items and the closing `---`.
const MAX_FRONT_MATTER_LINES = MAX_RULE_GLOBS + 3;

/** One maintainers' rule for the files its globs match: given to the model only with those files. */
export interface PathRule {
  /** Where it comes from, `.ai/rules/<name>.md`: its name in reports and logs. */
  readonly name: string;
  readonly globs: readonly string[];
  /** The text after the front matter, trimmed; never empty. */
  readonly text: string;
}

const Globs = z.array(Glob).min(1, "lists no glob").max(MAX_RULE_GLOBS, `has more than ${MAX_RULE_GLOBS} globs`);

/**
 * Parses one `.ai/rules/*.md` (`name` is its path, `.ai/rules/api.md`): a front matter between a
 * first line `---` and the next `---` line, holding only the `paths` key, either inline as a JSON
 * array of double-quoted globs (`paths: ["src/api/**", "*.sql"]`) or as a block list with one
 * double-quoted glob per indented `- ` line; then the rule text, which must not be empty. Every
 * other line (a blank line, a comment, another key, an unquoted glob, `paths` twice) is an error
 * naming the line. Linear in the text; the caller bounds its size ({@link MAX_RULE_FILE_BYTES}).
 */
export function parsePathRule(name: string, text: string): CheckResult<PathRule> {
  // Editors on Windows save a byte-order mark and CRLF line ends.
  const source = text.replace(/^\uFEFF/, "");
  const lines = frontMatterLines(source);
  if (lines[0]?.text !== "---") return fail(name, "must start with a front matter: a first line `---`, then `paths: [...]`, then `---`");
  const close = lines.findIndex((line, index) => index > 0 && line.text === "---");
  if (close === -1)
    return fail(
      name,
      `has no closing \`---\` line within its first ${MAX_FRONT_MATTER_LINES} lines (a front matter holds \`paths\` alone, at most ${MAX_RULE_GLOBS} globs)`,
    );
  const paths = readPaths(name, lines.slice(1, close));
  if (!paths.ok) return paths;
  const checked = Globs.safeParse(paths.value);
  if (!checked.success)
    return { ok: false, errors: checked.error.issues.map((issue) => configError(name, `${formatPath(["paths", ...issue.path])}: ${issue.message}`)) };
  const body = source.slice(lines[close]?.end ?? source.length).trim();
  if (body === "") return fail(name, "has no rule text after its front matter");
  return { ok: true, value: { name, globs: checked.data, text: body } };
}

interface Line {
  readonly number: number;
  readonly text: string;
  /** The offset just past the line's end. */
  readonly end: number;
}

// The first lines (at most enough for the longest front matter and its closing line), each
// without its line end and trailing blanks: only these are ever looked at.
function frontMatterLines(source: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (lines.length < MAX_FRONT_MATTER_LINES && start < source.length) {
    const newline = source.indexOf("\n", start);
    const end = newline === -1 ? source.length : newline + 1;
    lines.push({ number: lines.length + 1, text: source.slice(start, newline === -1 ? end : newline).trimEnd(), end });
    start = end;
  }
  return lines;
}

const KEY = /^([A-Za-z_][\w-]*)[ \t]*:/;

function readPaths(name: string, lines: readonly Line[]): CheckResult<unknown> {
  let paths: unknown[] | null = null;
  let block = false;
  const errors: ConfigError[] = [];
  const refuse = (line: Line, reason: string) => errors.push(configError(name, `front matter line ${line.number}: ${reason}`));
  for (const line of lines) {
    const key = KEY.exec(line.text)?.[1];
    const item = /^ +- /.exec(line.text);
    if (key === "paths") {
      if (paths !== null) {
        refuse(line, "`paths` is given twice");
        continue;
      }
      const value = line.text.slice(line.text.indexOf(":") + 1).trim();
      block = value === "";
      paths = block ? [] : inlineList(value);
      if (paths === null) {
        refuse(line, `\`paths\` must be a JSON array of double-quoted globs or a block list on the next lines, not ${quote(value)}`);
        paths = [];
      }
    } else if (key !== undefined) refuse(line, `unknown key ${quote(key)} (only \`paths\` is allowed)`);
    else if (item !== null && block && paths !== null) {
      const glob = quotedString(line.text.slice(item[0].length).trim());
      if (glob === null) refuse(line, `a list item must be one double-quoted glob, not ${quote(line.text.trim())}`);
      else paths.push(glob);
    } else if (item !== null) refuse(line, "a list item outside a `paths:` block list");
    else refuse(line, `is not \`paths: [...]\` or a \`  - "glob"\` list item: ${quote(line.text)}`);
  }
  if (errors.length > 0) return { ok: false, errors };
  if (paths === null) return fail(name, "its front matter has no `paths`");
  return { ok: true, value: paths };
}

// A JSON array of strings, or null. JSON.parse is linear and never evaluates anything.
function inlineList(value: string): unknown[] | null {
  if (!value.startsWith("[")) return null;
  const parsed = parseJson(value);
  return Array.isArray(parsed) && parsed.every((element) => typeof element === "string") ? parsed : null;
}

function quotedString(value: string): string | null {
  if (!value.startsWith('"')) return null;
  const parsed = parseJson(value);
  return typeof parsed === "string" ? parsed : null;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
