import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import { AppError } from "@reviewbot/core/errors";

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

/** True when the worker runs as root (real or effective uid 0): it then gives each run its own host uid. */
export function isRootWorker(ids: ProcessIds = ownIds()): boolean {
  return ids.uid === 0 || ids.euid === 0;
}

/**
 * Decides who bwrap runs as for one run. A root worker switches to the run's leased host uid
 * (`HostUidPool`); any other worker runs bwrap as itself. Root inside an unprivileged bwrap is the
 * host user that started it, so uid or gid 0 would leave the sandbox mapped to host root
 * (docs/architecture.md, 'Host facts': bwrap started by root): refused.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` when a root worker has no lease or the sandbox would be root.
 */
export function sandboxUserFor(lease: { readonly uid: number; readonly gid: number } | undefined, ids: ProcessIds = ownIds()): SandboxUser {
  const root = isRootWorker(ids);
  if (root && lease === undefined) throw new AppError("SANDBOX_UNAVAILABLE", "a root worker runs bwrap only as a run's own host uid, and none was leased");
  const user = root && lease !== undefined ? { uid: lease.uid, gid: lease.gid, switchUser: true } : { uid: ids.uid, gid: ids.gid, switchUser: false };
  if (user.uid === 0 || user.gid === 0) {
    throw new AppError("SANDBOX_UNAVAILABLE", `bwrap would run as host uid ${String(user.uid)} gid ${String(user.gid)}; refusing root`, {
      details: { user: root ? "leased" : "worker" },
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

/** This process's real and effective uid and its gid. */
export function ownIds(): ProcessIds {
  return { uid: process.getuid?.() ?? -1, euid: process.geteuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
}
