import { AppError } from "@reviewbot/core/errors";
import { SANDBOX_IDS } from "./sandbox-ids.js";
import type { DaemonUidNames } from "./daemon-uid-names.js";
import type { HostUidPool } from "./host-uid-pool.js";

/**
 * Where a container engine's runs get their uids: leased by this host's workers (a root worker's
 * own rootful service), leased through a shared daemon by container names (an engine behind a
 * configured socket), or, with neither, uid 10001 for every run.
 */
export type RunUids = { readonly kind: "host-pool"; readonly pool: HostUidPool } | { readonly kind: "daemon-names"; readonly names: DaemonUidNames };

/** The uid a run's container runs as and, when it is the run's own, what gives it back. */
export interface RunUid {
  readonly uid: number;
  readonly gid: number;
  /** True when the uid is this run's alone (leased), false for the shared uid 10001. */
  readonly own: boolean;
  /** Gives the uid back: call once the container is removed (never while its processes may live). */
  release(): Promise<void>;
}

/** Makes the run's container as `user` (`uid:gid`), named `name` when given; rejects as the daemon does. */
export type CreateAs<C> = (user: string, name: string | undefined) => Promise<C>;

const SHARED: RunUid = { ...SANDBOX_IDS, own: false, release: () => Promise.resolve() };

/** True when a run with a writable mount gets a uid of its own too: the worker can hand it the mount. */
export function handsOverMounts(uids: RunUids | undefined): boolean {
  return uids !== undefined && (uids.kind === "host-pool" || uids.names.handsOverMounts);
}

/**
 * Creates a run's container as a uid of its own when `uids` can give one: from a host pool, or
 * through daemon names. A run with a writable mount the worker cannot hand to that uid (a worker
 * that is not root, a rootless engine's uids, or no source of uids) is refused rather than run as
 * a shared uid. Without `uids` every other run is uid 10001.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` when no uid is free; `POLICY_DENIED` for a writable mount
 *   that cannot be handed over; or what `create` throws.
 */
export async function createAsRunUid<C>(uids: RunUids | undefined, writable: boolean, create: CreateAs<C>): Promise<{ container: C; uid: RunUid }> {
  if (uids?.kind === "host-pool") {
    const lease = await uids.pool.acquire();
    try {
      return { container: await create(userOf(lease), undefined), uid: { uid: lease.uid, gid: lease.gid, own: true, release: () => lease.release() } };
    } catch (err) {
      await lease.release();
      throw err;
    }
  }
  if (writable && !handsOverMounts(uids)) {
    throw new AppError(
      "POLICY_DENIED",
      "mounts: a writable mount needs a run uid of its own, and this worker cannot hand the mount to one (it is not root, or the engine is rootless)",
    );
  }
  if (uids === undefined) return { container: await create(userOf(SHARED), undefined), uid: SHARED };
  for (const candidate of uids.names.candidates()) {
    try {
      const container = await create(`${String(candidate.uid)}:${String(candidate.uid)}`, candidate.name);
      // The container's name holds the uid; removing the container gives it back.
      return { container, uid: { uid: candidate.uid, gid: candidate.uid, own: true, release: () => Promise.resolve() } };
    } catch (err) {
      if (!nameInUse(err, candidate.name)) throw err;
    }
  }
  const { first, count } = uids.names.range;
  throw new AppError(
    "SANDBOX_UNAVAILABLE",
    `no free sandbox uid in ${String(first)}-${String(first + count - 1)}: every container name tried (reviewbot-uid-<uid>) is held by a run in flight`,
  );
}

function userOf(ids: { readonly uid: number; readonly gid: number }): string {
  return `${String(ids.uid)}:${String(ids.gid)}`;
}

// Docker answers a taken name with 409 Conflict, Podman 4.3 with a 500 whose message names it
// ("the container name \"<name>\" is already in use by <id>"); the engine wraps either as the cause.
function nameInUse(err: unknown, name: string): boolean {
  for (let cause: unknown = err; cause !== undefined && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { statusCode?: unknown }).statusCode === 409) return true;
    const message = cause instanceof Error ? cause.message : "";
    if (message.includes(`"${name}" is already in use`)) return true;
  }
  return false;
}
