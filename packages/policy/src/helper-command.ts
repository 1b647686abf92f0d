import { resolveAiReference, splitOption } from "./ai-reference.js";
import { fail, quote, type CheckResult } from "./config-error.js";
import { normaliseContainedPath } from "./contained-path.js";

/**
 * Where every sandbox engine shows the worktree (`SandboxSpec.worktree`, mounted read-only). A
 * trusted `.ai/` path is made absolute under it, so that it never depends on the helper's cwd.
 */
export const SANDBOX_WORKTREE = "/work";

/**
 * A program looked up on the helper image's fixed `PATH` (`flake8`, `python3`, `sh`): no
 * separator, no shell metacharacters, and no leading `-` or `.` that could read as an option or a
 * relative path.
 */
export const PROGRAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * A helper executes only trusted code (docs/architecture.md, layer 2: helpers run only trusted
 * code), and `.ai` always means the trusted commit's top-level `.ai/` (the overlay replaces only that
 * one; a `src/.ai/` is the PR's).
 *
 * - `command[0]` is a bare program name (resolved inside the image) or a path that stays under
 *   `.ai/` after POSIX normalisation; it is returned absolute under {@link SANDBOX_WORKTREE}
 *   (`./.ai/a/../lint.sh` → `/work/.ai/lint.sh`), so a helper with `cwd: "src"` still runs the
 *   base's `.ai/lint.sh`, never `src/.ai/lint.sh`.
 * - The other entries are data for that program, except where they mention `.ai`: such an entry
 *   must be a path from the repository root (`["sh", ".ai/run.sh"]`, `--config=.ai/x`) and is
 *   made absolute the same way, or it is refused (see `resolveAiReference`).
 *
 * @param field the path of the `command` array in the config, for messages.
 */
export function checkHelperCommand(command: readonly string[], field: string): CheckResult<readonly string[]> {
  const [program, ...data] = command;
  if (program === undefined) return fail(field, "is empty; give a program and its arguments");
  const results = [checkProgram(program, `${field}[0]`)];
  for (const [index, arg] of data.entries()) results.push(resolveAiReference(arg, `${field}[${index + 1}]`, SANDBOX_WORKTREE));
  const values = results.flatMap((result) => (result.ok ? [result.value] : []));
  if (values.length === results.length) return { ok: true, value: values };
  return { ok: false, errors: results.flatMap((result) => (result.ok ? [] : result.errors)) };
}

function checkProgram(program: string, field: string): CheckResult<string> {
  // Anything that could be a path (a separator, or a leading . or ~) is judged as one, so that
  // `..`, `.ai` and `~` get the path's reason rather than "not a program name".
  if (program.includes("/") || /^[.~]/.test(program)) {
    const resolved = normaliseContainedPath(program, field, ".ai");
    if (!resolved.ok) return resolved;
    if (resolved.value === ".ai") return fail(field, `${quote(program)} names the .ai/ directory itself, not a file in it`);
    return { ok: true, value: `${SANDBOX_WORKTREE}/${resolved.value}` };
  }
  if (PROGRAM_NAME.test(program)) return { ok: true, value: program };
  const reason = `is neither a bare program name (${String(PROGRAM_NAME)}) nor a path under .ai/`;
  return fail(field, `${quote(program)} ${reason}`);
}

/**
 * The helper's working directory: a relative path that stays inside the worktree after
 * normalisation, returned normalised; `.` (the worktree root) when the config gives none. Outside
 * the top-level `.ai/`, it may not lie inside a directory named `.ai` (any letter case, `src/.ai`,
 * `.AI`): there every relative argument would name a file of a `.ai` the PR controls.
 */
export function checkHelperCwd(cwd: string | undefined, field: string): CheckResult<string> {
  if (cwd === undefined) return { ok: true, value: "." };
  const resolved = normaliseContainedPath(cwd, field, ".");
  if (!resolved.ok) return resolved;
  const segments = resolved.value.split("/");
  if (segments[0] === ".ai") return resolved;
  const nested = segments.findIndex((segment) => segment.toLowerCase() === ".ai");
  if (nested === -1) return resolved;
  const inside = segments.slice(0, nested + 1).join("/");
  return fail(field, `${quote(cwd)} lies inside ${quote(inside)}, which the PR controls (only the top-level .ai/ is the base's)`);
}

/**
 * The argv for an engine that shows the worktree at `root` rather than {@link SANDBOX_WORKTREE}
 * (the unsandboxed `none` engine runs in the host directory itself): every `.ai` path that
 * {@link checkHelperCommand} made absolute, as an entry or as an option's value, moves to `root`.
 * Nothing else changes. Only the policy writes such paths: a config or runtime argument that
 * mentions `.ai` in any other form is refused, `/work/.ai/x` included.
 */
export function relocateTrustedPaths(argv: readonly string[], root: string): readonly string[] {
  const trusted = `${SANDBOX_WORKTREE}/.ai`;
  return argv.map((arg) => {
    const { prefix, value } = splitOption(arg);
    const moved = value === trusted || value.startsWith(`${trusted}/`);
    return moved ? `${prefix}${root}${value.slice(SANDBOX_WORKTREE.length)}` : arg;
  });
}
