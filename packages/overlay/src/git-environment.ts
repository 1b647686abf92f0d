/**
 * The hardening applied to every git invocation. Git reads configuration, hooks, attributes and
 * helpers from many places; a PR author controls the bytes of the repository and the operator's
 * machine may carry a global config, so we turn every such source off and set what we rely on.
 */

/** `-c` settings placed before every git subcommand. */
export const HARDENED_CONFIG: readonly string[] = [
  // No hooks, ever: not from the mirror, not from templates (reference-transaction runs on fetch).
  "core.hooksPath=/dev/null",
  // An embedded bare repository can carry core.fsmonitor=<command> (CVE-2022-24765 class); we never
  // discover repositories, and fsmonitor stays off for the ones we name explicitly.
  "core.fsmonitor=false",
  "safe.bareRepository=explicit",
  "core.symlinks=true",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.attributesFile=/dev/null",
  "core.protectNTFS=true",
  "core.protectHFS=true",
  "core.quotePath=true",
  "core.pager=cat",
  "color.ui=false",
  // No credential storage: credentials arrive through GIT_ASKPASS for one call and are forgotten.
  "credential.helper=",
  "submodule.recurse=false",
  "fetch.recurseSubmodules=false",
  // Reject malformed objects (bad paths such as ".git" entries, hostile .gitmodules) at fetch.
  "transfer.fsckObjects=true",
  "fetch.fsckObjects=true",
  // Concurrent jobs share a mirror; background gc would race them. The janitor repacks under lock.
  "gc.auto=0",
  "maintenance.auto=false",
  "protocol.version=2",
  "init.defaultBranch=main",
];

export interface GitEnvironmentOptions {
  /** An empty directory owned by the worker, used as HOME so that no dotfile is read. */
  readonly home: string;
  /** Transports git may use, e.g. ["https"] in production, ["https", "file"] for local repositories. */
  readonly allowedProtocols: readonly string[];
  /** PATH to find git and its helpers; the operator's, never the repository's. */
  readonly path: string;
}

/**
 * Builds the environment of a git child process from scratch. Nothing is inherited from the
 * worker's environment except PATH, so a stray GIT_DIR, GIT_SSH_COMMAND or token cannot leak in.
 */
export function gitEnvironment(options: GitEnvironmentOptions): Record<string, string> {
  return {
    PATH: options.path,
    HOME: options.home,
    XDG_CONFIG_HOME: options.home,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_SYSTEM: "/dev/null",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_ALLOW_PROTOCOL: options.allowedProtocols.join(":"),
    // Never download LFS objects, even where git-lfs happens to be installed.
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_OPTIONAL_LOCKS: "0",
  };
}

/** The argv prefix: hardened settings, then the repository (and work tree) named explicitly. */
export function gitArgv(gitDir: string, args: readonly string[], workTree?: string): string[] {
  const config = HARDENED_CONFIG.flatMap((setting) => ["-c", setting]);
  const location = workTree === undefined ? [`--git-dir=${gitDir}`] : [`--git-dir=${gitDir}`, `--work-tree=${workTree}`];
  return ["--no-pager", ...config, ...location, ...args];
}
