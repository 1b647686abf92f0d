import { fail, quote, type CheckResult } from "./config-error.js";
import { normaliseContainedPath } from "./contained-path.js";

/**
 * A program looked up on the helper image's fixed `PATH` (`flake8`, `python3`, `sh`): no
 * separator, no shell metacharacters, and no leading `-` or `.` that could read as an option or a
 * relative path.
 */
export const PROGRAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * Defense layer 2: a helper executes only trusted code. `command[0]` must be a bare program name
 * (resolved inside the image) or a path that stays under `.ai/` after POSIX normalisation, which
 * comes from the base commit. It is returned normalised (`./.ai/a/../lint.sh` → `.ai/lint.sh`).
 * The other entries are data handed to that program (`["sh", ".ai/run.sh", "src/"]`) and are not
 * checked here beyond the schema's NUL and length limits.
 *
 * @param field the path of the `command` array in the config, for messages.
 */
export function checkHelperCommand(command: readonly string[], field: string): CheckResult<readonly string[]> {
  const [program, ...data] = command;
  if (program === undefined) return fail(field, "is empty; give a program and its arguments");
  const programField = `${field}[0]`;
  // Anything that could be a path (a separator, or a leading . or ~) is judged as one, so that
  // `..`, `.ai` and `~` get the path's reason rather than "not a program name".
  if (program.includes("/") || /^[.~]/.test(program)) {
    const resolved = normaliseContainedPath(program, programField, ".ai");
    return resolved.ok ? { ok: true, value: [resolved.value, ...data] } : resolved;
  }
  if (PROGRAM_NAME.test(program)) return { ok: true, value: command };
  const reason = `is neither a bare program name (${String(PROGRAM_NAME)}) nor a path under .ai/`;
  return fail(programField, `${quote(program)} ${reason}`);
}

/**
 * The helper's working directory: a relative path that stays inside the worktree after
 * normalisation, returned normalised; `.` (the worktree root) when the config gives none.
 */
export function checkHelperCwd(cwd: string | undefined, field: string): CheckResult<string> {
  return cwd === undefined ? { ok: true, value: "." } : normaliseContainedPath(cwd, field, ".");
}
