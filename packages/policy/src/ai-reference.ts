import { fail, quote, type CheckResult } from "./config-error.js";
import { normaliseContainedPath } from "./contained-path.js";

// `.ai` ending a name, in any letter case: `.ai/x`, `src/.ai`, `-c.ai/x`, `'.ai'`, `x.AI`. Not
// `.aiignore`, `.ai-rules`, `.ai_x` or `.ai.json`, which are other names. Deliberately wider than a
// path segment: `-c.ai/x` or `sh -c "sh .ai/x"` hand a program a relative `.ai/` all the same.
const AI_NAME = /\.ai(?![A-Za-z0-9_.-])/i;
// The one way to write a path to the trusted directory: from the repository root, in lower case.
const ROOT_AI = /^(?:\.\/)*\.ai(?:\/|$)/;

const NOT_FROM_ROOT =
  "mentions .ai other than as a path .ai/… from the repository root: relative to the helper's cwd it could name a directory the PR controls";

/** Whether `text` names something `.ai` (see {@link resolveAiReference}), in any letter case. */
export function mentionsAi(text: string): boolean {
  return AI_NAME.test(text);
}

/**
 * Splits an option written `-o=value` or `--name=value` at its first `=`; any other argument is all
 * value (`prefix` empty).
 */
export function splitOption(arg: string): { readonly prefix: string; readonly value: string } {
  const at = arg.startsWith("-") ? arg.indexOf("=") : -1;
  return at === -1 ? { prefix: "", value: arg } : { prefix: arg.slice(0, at + 1), value: arg.slice(at + 1) };
}

/**
 * For an argument (docs/architecture.md, layer 2: helpers run only trusted code): `.ai` always
 * means the trusted commit's top-level `.ai/`, by absolute path. An argument that does not mention
 * `.ai` ({@link mentionsAi}) is returned as it is. One that does must be a path from the repository
 * root (`.ai/x`, `./.ai/x`, `.ai`), or an option whose value is one (`--config=.ai/x`); it is
 * normalised, must stay under `.ai/`, and comes back absolute under `root` (`.ai/a/../x.py` →
 * `/work/.ai/x.py`), so no cwd and no PR directory named `.ai` can stand in for it. Every other
 * mention is refused: `src/.ai/x`, `../.ai/x`, `/work/.ai/x`, `.AI/x`, `-c.ai/x`, `.ai/../x`, a
 * shell string `cd src && sh .ai/x`.
 *
 * @param root where the worktree is inside the sandbox (no trailing `/`).
 */
export function resolveAiReference(arg: string, field: string, root: string): CheckResult<string> {
  if (!mentionsAi(arg)) return { ok: true, value: arg };
  const { prefix, value } = splitOption(arg);
  if (mentionsAi(prefix) || !ROOT_AI.test(value)) return fail(field, `${quote(arg)} ${NOT_FROM_ROOT}`);
  const path = normaliseContainedPath(value, field, ".ai");
  return path.ok ? { ok: true, value: `${prefix}${root}/${path.value}` } : path;
}
