import { posix } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import { SANDBOX_IDS } from "../uids/sandbox-ids.js";

/** The descriptor bwrap reads the seccomp program from: the fourth stdio pipe of the spawn. */
export const SECCOMP_FD = 3;
/**
 * The descriptor bwrap reads its options from (`--args`): host paths and environment values then
 * never appear in a command line, neither in the host's `ps` nor in the sandbox's /proc/1/cmdline.
 */
export const ARGS_FD = 4;
/** Where the worktree appears inside the sandbox. */
export const SANDBOX_WORKDIR = "/work";

/** Everything that varies between bwrap invocations; host paths are the worker's own. */
export interface BwrapArgsInput {
  /** The helper image's extracted filesystem, mounted read-only as `/`. */
  readonly rootfs: string;
  /** The worker-created worktree (from the spec, never a path read from the repository). */
  readonly worktree: string;
  /** Working directory relative to /work. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
  readonly tmpfsBytes: number;
  /** The run's own memory and pids cgroups, shown read-only so a probe can read its limits. */
  readonly cgroupDirs?: { readonly memory: string; readonly pids: string } | undefined;
}

/**
 * The bwrap options for one run (the command follows separately, see bwrapCommand): every namespace unshared, nested user namespaces
 * disabled, no capabilities, a new session (no TIOCSTI into the worker's terminal), killed with
 * its parent; the image's rootfs and the worktree read-only, fresh /proc and /dev, a size-limited
 * /tmp; an environment made of `env` alone (bwrap's own is cleared); the seccomp program read from
 * {@link SECCOMP_FD}. No host /etc, /home or other host path is mounted.
 *
 * @throws AppError `POLICY_DENIED` for a cwd that leaves /work, a relative or unnormalised host
 *   path, an empty argv, or an environment entry bwrap cannot carry.
 */
export function bwrapArgs(input: BwrapArgsInput): string[] {
  const hostPaths = [input.rootfs, input.worktree, input.cgroupDirs?.memory, input.cgroupDirs?.pids];
  for (const path of hostPaths) if (path !== undefined) assertHostPath(path);
  if (input.worktree === "/") deny("the worktree cannot be the host's root directory");
  if (input.argv.length === 0) deny("argv is empty");
  for (const arg of input.argv) if (arg.includes("\0")) deny("an argv element contains NUL");
  if (!Number.isSafeInteger(input.tmpfsBytes) || input.tmpfsBytes <= 0) deny(`invalid tmpfs size ${input.tmpfsBytes}`);

  const args = [
    ...["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"],
    ...["--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"],
    ...["--uid", String(SANDBOX_IDS.uid), "--gid", String(SANDBOX_IDS.gid)],
    ...["--ro-bind", input.rootfs, "/"],
    ...["--ro-bind", input.worktree, SANDBOX_WORKDIR],
    ...["--proc", "/proc", "--dev", "/dev"],
  ];
  if (input.cgroupDirs !== undefined) {
    args.push("--ro-bind", input.cgroupDirs.memory, "/sys/fs/cgroup/memory");
    args.push("--ro-bind", input.cgroupDirs.pids, "/sys/fs/cgroup/pids");
  }
  args.push("--size", String(input.tmpfsBytes), "--tmpfs", "/tmp");
  args.push("--chdir", sandboxCwd(input.cwd));
  for (const [name, value] of Object.entries(input.env)) {
    if (name === "" || /[=\0]/.test(name) || value.includes("\0")) deny(`environment entry ${JSON.stringify(name)} is invalid`);
    args.push("--setenv", name, value);
  }
  args.push("--seccomp", String(SECCOMP_FD));
  return args;
}

/**
 * The absolute working directory inside the sandbox for a cwd relative to /work, normalised; a cwd
 * that climbs out of /work is refused (the policy checked it already; this is the engine's own
 * guard).
 */
export function sandboxCwd(cwd: string): string {
  if (cwd.includes("\0")) deny("cwd contains NUL");
  const joined = posix.join(SANDBOX_WORKDIR, cwd).replace(/(.)\/+$/, "$1");
  if (joined !== SANDBOX_WORKDIR && !joined.startsWith(`${SANDBOX_WORKDIR}/`)) deny(`cwd ${JSON.stringify(cwd)} leaves ${SANDBOX_WORKDIR}`);
  return joined;
}

function assertHostPath(path: string): void {
  if (path.includes("\0") || !posix.isAbsolute(path) || posix.normalize(path) !== path) {
    deny(`host path ${JSON.stringify(path)} is not absolute and normalised`);
  }
}

function deny(message: string): never {
  throw new AppError("POLICY_DENIED", `bwrap: ${message}`);
}
