import { AppError } from "@reviewbot/core/errors";
import { mentionsAi } from "./ai-reference.js";
import { quote } from "./config-error.js";
import { findUnsafeCharacter } from "./unsafe-text.js";

/** The highest `max_args` a helper may declare. */
export const MAX_ARGS_CEILING = 32;
/** The `max_args` of a helper that declares none. */
export const DEFAULT_MAX_ARGS = 8;
/** The longest runtime argument accepted. */
export const MAX_RUNTIME_ARG_LENGTH = 200;

/** What {@link buildHelperArgv} needs to know about a helper (a subset of `ResolvedHelper`). */
export interface ArgsPolicy {
  readonly name: string;
  readonly command: readonly string[];
  readonly allowArgs: boolean;
  readonly maxArgs: number;
  readonly argsSeparator: boolean;
}

/**
 * Appends arguments chosen at run time (by an LLM, so untrusted) to a helper's command. They are
 * allowed only when the helper sets `allow_args`, at most `max_args` of them, each a string of at
 * most 200 characters without control characters. Option injection: with `args_separator` (the
 * default) a `--` is inserted before them, so `-rf` is an operand; without it an argument that
 * begins with `-` is refused. An argument that mentions `.ai` in any form (`.ai/x`, `src/.ai/x`,
 * `--config=.ai/x`) is refused: which trusted files run is the base config's choice, and relative
 * to the helper's cwd such a path could name a `.ai` the PR controls (docs/architecture.md,
 * layer 2: helpers run only trusted code). No arguments: the command alone, without a `--`.
 *
 * @throws AppError `POLICY_DENIED` naming the argument and the reason.
 */
export function buildHelperArgv(helper: ArgsPolicy, args: readonly unknown[]): readonly string[] {
  if (args.length === 0) return helper.command;
  const deny = (reason: string): never => {
    const details = { helper: helper.name };
    throw new AppError("POLICY_DENIED", `helper ${quote(helper.name)}: ${reason}`, { details });
  };
  if (!helper.allowArgs) deny("args: runtime arguments are not allowed (allow_args is false)");
  // The schema already caps max_args; capping again keeps a hand-built policy within the ceiling.
  const maxArgs = Math.min(helper.maxArgs, MAX_ARGS_CEILING);
  if (args.length > maxArgs) deny(`args: ${args.length} arguments given, at most ${maxArgs} allowed (max_args)`);
  const checked = args.map((arg, index) => {
    if (typeof arg !== "string") {
      return deny(`args[${index}]: expected a string, got ${arg === null ? "null" : typeof arg}`);
    }
    const reason = argProblem(arg, helper.argsSeparator);
    return reason === undefined ? arg : deny(`args[${index}]: ${reason}`);
  });
  return helper.argsSeparator ? [...helper.command, "--", ...checked] : [...helper.command, ...checked];
}

function argProblem(arg: string, separated: boolean): string | undefined {
  if (arg.length > MAX_RUNTIME_ARG_LENGTH) {
    return `is ${arg.length} characters long, at most ${MAX_RUNTIME_ARG_LENGTH} allowed`;
  }
  const unsafe = findUnsafeCharacter(arg);
  if (unsafe !== undefined) return `${quote(arg)} ${unsafe}`;
  if (mentionsAi(arg)) return `${quote(arg)} mentions .ai: runtime arguments may not name .ai/ (the base config names the trusted files it runs)`;
  if (!separated && arg.startsWith("-")) {
    return `${quote(arg)} begins with "-" and could be read as an option (args_separator is false)`;
  }
  return undefined;
}
