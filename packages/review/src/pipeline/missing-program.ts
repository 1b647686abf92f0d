import { runOutcome } from "@reviewbot/sandbox/run-outcome";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";

/** How many lines at the head of stderr are looked at, and how much of each. */
const HEAD_LINES = 5;
const MAX_LINE = 512;
// What a program name looks like when we quote it back (never spaces, quotes or controls).
const PROGRAM = /^[A-Za-z0-9_./+-]{1,256}$/;

interface Rule {
  readonly pattern: RegExp;
  readonly exitCodes: readonly number[];
  /** The engine's own exec failure: printed before anything of the helper ran, so the first line. */
  readonly firstLine: boolean;
  /** The program is the pattern's group, or argv[0] for a message that names none. */
  readonly program: "named" | "argv0";
}

/**
 * What each engine, and the shells and `env` a program is started through, print when the program
 * to run is not there (checked on these hosts: bwrap 0.8, Podman 4.3 with catatonit, dash, GNU env).
 * An exec failure inside bwrap or catatonit exits 1 before anything of the helper ran, so it is
 * the first line; a shell or `env` exits 127 (POSIX "command not found").
 */
const RULES: readonly Rule[] = [
  { pattern: /^bwrap: execvp (\S+): No such file or directory$/, exitCodes: [1], firstLine: true, program: "named" },
  { pattern: /^ERROR \(catatonit:\d+\): failed to exec pid1: No such file or directory$/, exitCodes: [1], firstLine: true, program: "argv0" },
  // Docker's init (tini).
  { pattern: /^\[FATAL tini \(\d+\)\] exec (\S+) failed: No such file or directory$/, exitCodes: [1, 127], firstLine: true, program: "named" },
  // Podman's stdin wrapper `sh -c 'exec "$@" < …'` (the context script).
  { pattern: /^(?:\S+: )?(?:\d+: )?exec: (\S+): not found$/, exitCodes: [127], firstLine: true, program: "named" },
  // A `#!/usr/bin/env python3` script in an image without python3.
  { pattern: /^\S*env: ['‘]([^'’]+)['’]: No such file or directory$/, exitCodes: [127], firstLine: false, program: "named" },
  // A shell script calling a program the image lacks (dash, bash).
  { pattern: /^\S+: (?:line )?\d+: (\S+): (?:command )?not found$/, exitCodes: [127], firstLine: false, program: "named" },
];

/**
 * The program a sandbox run could not start because the image does not have it, or null. Read
 * from the exit status (1 from the engine's exec, 127 from a shell or `env`) and the first lines
 * of stderr in the forms the engines print. `argv` is what the engine ran (for messages that
 * name no program). A name is returned only when it looks like one (letters, digits, `._/+-`):
 * stderr is the sandbox's, so it may be quoted back but never trusted with more than a name.
 */
export function missingProgram(result: SandboxResult, argv: readonly string[]): string | null {
  // Only the program's own non-zero exit can be "not found": a run we killed, or that a signal ended, is not.
  if (result.exitCode === null || runOutcome(result) !== "nonzero") return null;
  const head = result.stderr
    .subarray(0, HEAD_LINES * (MAX_LINE + 1))
    .toString("utf8")
    .split("\n", HEAD_LINES);
  for (const [index, raw] of head.entries()) {
    const line = raw.slice(0, MAX_LINE).trimEnd();
    for (const rule of RULES) {
      if (!rule.exitCodes.includes(result.exitCode) || (rule.firstLine && index > 0)) continue;
      const match = rule.pattern.exec(line);
      const name = match === null ? undefined : rule.program === "argv0" ? argv[0] : match[1];
      if (name !== undefined && PROGRAM.test(name)) return name;
    }
  }
  return null;
}

/**
 * The interpreter a script's `#!` line names (`#!/usr/bin/env python3` → `python3`,
 * `#!/bin/bash -e` → `/bin/bash`), or null without one. An exec of a script whose interpreter is
 * missing fails as if the script itself were (ENOENT), so the interpreter is the program to name.
 */
export function shebangInterpreter(head: string): string | null {
  if (!head.startsWith("#!")) return null;
  const words = head
    .slice(2, head.indexOf("\n") === -1 ? undefined : head.indexOf("\n"))
    .trim()
    .split(/[ \t]+/);
  const [program, ...rest] = words;
  if (program === undefined || program === "") return null;
  if (program !== "/usr/bin/env" && program !== "/bin/env") return program;
  // `env -S python3 -u`: the first word that is not an option.
  return rest.find((word) => !word.startsWith("-")) ?? null;
}
