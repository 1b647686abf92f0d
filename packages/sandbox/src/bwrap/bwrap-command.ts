import { ARGS_FD } from "./bwrap-args.js";
import type { SandboxLimits } from "../sandbox-spec.js";

/** Absolute paths of everything the engine executes (Debian's packages); never looked up on PATH. */
export const BWRAP_BINARIES = {
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  sh: "/bin/sh",
} as const;

/**
 * RLIMIT_NPROC counts every task of the sandbox's host uid across all concurrent sandboxes (and,
 * for a non-root worker, the worker's own processes), not one run: it is a fork-bomb backstop,
 * set to room for this many sandboxes at their pids limit. The per-run cap is the pids cgroup.
 */
export const NPROC_RUNS = 16;

/**
 * Joins every cgroup named before `--` by writing its own pid, then execs the rest. Paths arrive
 * as arguments, never interpolated into the script; a failed join exits 125 before bwrap starts.
 */
const JOIN_CGROUPS_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/** The executable and arguments the engine spawns, and bwrap's options for {@link ARGS_FD}. */
export interface BwrapCommand {
  readonly file: string;
  readonly args: readonly string[];
  /** NUL-terminated options, written to bwrap's `--args` descriptor. */
  readonly options: Buffer;
}

/** prlimit's resource options for a run: equal soft and hard limits, no core dumps. */
export function prlimitArgs(limits: Pick<SandboxLimits, "nofile" | "pids" | "fsizeBytes">): string[] {
  const nproc = limits.pids * NPROC_RUNS;
  return [`--nofile=${limits.nofile}:${limits.nofile}`, `--nproc=${nproc}:${nproc}`, `--fsize=${limits.fsizeBytes}:${limits.fsizeBytes}`, "--core=0:0"];
}

/**
 * The full command for one run: `prlimit <limits> -- bwrap --args 4 -- <argv>`, behind the
 * cgroup-joining shell when the run has cgroups, with bwrap's options passed through the
 * descriptor. Every stage execs the next, so the spawned pid is bwrap's own and the rlimits and
 * cgroups are in place before bwrap creates the sandbox.
 */
export function bwrapCommand(
  bwrapOptions: readonly string[],
  argv: readonly string[],
  limits: Pick<SandboxLimits, "nofile" | "pids" | "fsizeBytes">,
  cgroupProcsFiles: readonly string[],
): BwrapCommand {
  const options = Buffer.from(bwrapOptions.map((option) => `${option}\0`).join(""));
  const limited = [...prlimitArgs(limits), "--", BWRAP_BINARIES.bwrap, "--args", String(ARGS_FD), "--", ...argv];
  if (cgroupProcsFiles.length === 0) return { file: BWRAP_BINARIES.prlimit, args: limited, options };
  const join = ["-c", JOIN_CGROUPS_SCRIPT, "sh", ...cgroupProcsFiles, "--"];
  return { file: BWRAP_BINARIES.sh, args: [...join, BWRAP_BINARIES.prlimit, ...limited], options };
}
