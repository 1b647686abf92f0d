import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { AppError } from "@reviewbot/core/errors";

/** The host user bubblewrap runs as when the worker is root (created by scripts/setup.sh). */
export const DEFAULT_SANDBOX_USER = "reviewbot-sandbox";

/** The host identity a sandbox runs under. */
export interface SandboxUser {
  readonly uid: number;
  readonly gid: number;
  /** True when the worker is root and must switch to this user when it spawns bwrap. */
  readonly switchUser: boolean;
}

/** The worker's own ids; a parameter so that tests can pretend to be root or not. */
export interface ProcessIds {
  readonly uid: number;
  readonly euid: number;
  readonly gid: number;
}

const CREATE_HINT = "useradd --system --no-create-home --shell /usr/sbin/nologin";

/** Finds `name` in the text of /etc/passwd; undefined when it is absent or its entry is malformed. */
export function findPasswdEntry(passwd: string, name: string): { uid: number; gid: number } | undefined {
  for (const line of passwd.split("\n")) {
    const [entryName, , uid = "", gid = ""] = line.split(":");
    if (entryName !== name) continue;
    return /^\d+$/.test(uid) && /^\d+$/.test(gid) ? { uid: Number(uid), gid: Number(gid) } : undefined;
  }
  return undefined;
}

/**
 * Decides who bwrap runs as. A root worker (real or effective uid 0) switches to the configured
 * user, looked up in /etc/passwd; any other worker runs bwrap as itself. Root inside an
 * unprivileged bwrap is the host user that started it, so uid or gid 0 would leave the sandbox
 * mapped to host root (ARCHITECTURE §6): refused.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` when the user is missing or the sandbox would be root.
 */
export async function resolveSandboxUser(
  name: string = DEFAULT_SANDBOX_USER,
  ids: ProcessIds = ownIds(),
  passwdPath = "/etc/passwd",
): Promise<SandboxUser> {
  const root = ids.uid === 0 || ids.euid === 0;
  let user: SandboxUser = { uid: ids.uid, gid: ids.gid, switchUser: false };
  if (root) {
    const entry = findPasswdEntry(await readFile(passwdPath, "utf8"), name);
    if (entry === undefined) {
      throw new AppError("SANDBOX_UNAVAILABLE", `sandbox user ${name} is not in ${passwdPath}; create it: ${CREATE_HINT} ${name}`);
    }
    user = { ...entry, switchUser: true };
  }
  if (user.uid === 0 || user.gid === 0) {
    throw new AppError("SANDBOX_UNAVAILABLE", `bwrap would run as host uid ${user.uid} gid ${user.gid}; refusing root`, {
      details: { user: root ? name : "worker" },
    });
  }
  return user;
}

/**
 * Checks that `user` can reach `path` (it and every ancestor searchable), so that a cache or worktree under
 * a private directory such as /root fails here with its name instead of as a bwrap exit code 1.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` naming the first directory the user cannot search.
 */
export async function assertReachableBy(path: string, user: SandboxUser): Promise<void> {
  if (!user.switchUser) return;
  for (let dir = path; ; dir = dirname(dir)) {
    const info = await stat(dir);
    const bit = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) {
      throw new AppError("SANDBOX_UNAVAILABLE", `${dir} is not searchable by the sandbox user (uid ${user.uid}), so bwrap cannot reach ${path}`);
    }
    if (dir === "/") return;
  }
}

function ownIds(): ProcessIds {
  return { uid: process.getuid?.() ?? -1, euid: process.geteuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
}
