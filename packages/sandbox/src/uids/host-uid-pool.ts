import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { AppError } from "@reviewbot/core/errors";

/** A range of host uids (and the gids of the same numbers) that sandboxes run as, one per run. */
export interface HostUidRange {
  readonly first: number;
  readonly count: number;
}

/**
 * Past the subordinate ranges `useradd` hands out (login.defs: SUB_UID_MAX 600,100,000) and every
 * system or login user: no file on the host belongs to these uids unless a sandbox made it.
 */
export const DEFAULT_SANDBOX_UIDS: HostUidRange = { first: 700_000_000, count: 65_536 };

/** One run's host uid, held until `release`. */
export interface HostUidLease {
  readonly uid: number;
  readonly gid: number;
  release(): Promise<void>;
}

/** Files the range is checked against; parameters so that tests can give their own. */
export interface HostIdFiles {
  readonly passwd: string;
  readonly group: string;
  readonly subuid: string;
  readonly subgid: string;
}

const HOST_ID_FILES: HostIdFiles = { passwd: "/etc/passwd", group: "/etc/group", subuid: "/etc/subuid", subgid: "/etc/subgid" };
const MAX_UID = 0xffff_fffe; // (uid_t)-1 is "no uid"

/**
 * Hands each sandbox run its own host uid from a range, so that no two runs in flight on a host
 * (in this worker or any other) share a host user: an escape from one PR's helper lands as a user
 * that owns nothing of another's. A lease is an abstract Unix socket bound to a name made of the
 * uid: binding is atomic host-wide (per network namespace) and the kernel drops the name when the
 * holder exits, so a crashed worker leaves no stale lease and no lock file. A local process could
 * squat names (leases run out: `SANDBOX_UNAVAILABLE`), never take a run's uid.
 */
export class HostUidPool {
  readonly range: HostUidRange;
  readonly #namespace: string;
  #cursor = 0;

  private constructor(range: HostUidRange, namespace: string) {
    this.range = range;
    this.#namespace = namespace;
  }

  /**
   * A pool over `range`, checked first (`checkSandboxUids`).
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` naming what the range overlaps.
   */
  static async create(
    range: HostUidRange = DEFAULT_SANDBOX_UIDS,
    files: HostIdFiles = HOST_ID_FILES,
    namespace = "reviewbot-sandbox-uid",
  ): Promise<HostUidPool> {
    await checkSandboxUids(range, files);
    return new HostUidPool(range, namespace);
  }

  /**
   * Leases the next free uid of the range, round robin (a uid just released is the last to be
   * handed out again).
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` when every uid of the range is held.
   */
  async acquire(): Promise<HostUidLease> {
    for (let tried = 0; tried < this.range.count; tried += 1) {
      const uid = this.range.first + this.#cursor;
      this.#cursor = (this.#cursor + 1) % this.range.count;
      const server = await bind(`\0${this.#namespace}-${String(uid)}`);
      if (server !== null) return { uid, gid: uid, release: () => unbind(server) };
    }
    throw new AppError("SANDBOX_UNAVAILABLE", `every sandbox uid of ${describe(this.range)} is held by a run in flight`);
  }
}

/**
 * Checks that `range` can hold sandboxes' host uids: no uid 0, not the worker's own ids, no user or
 * group of the host, no subordinate id range (a rootless user's containers) overlaps it.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` naming what the range overlaps.
 */
export async function checkSandboxUids(range: HostUidRange, files: HostIdFiles = HOST_ID_FILES): Promise<void> {
  const problem = rangeProblem(range) ?? (await overlap(range, files));
  if (problem !== undefined) {
    throw new AppError("SANDBOX_UNAVAILABLE", `sandbox uid range ${describe(range)}: ${problem} (REVIEWBOT_SANDBOX_UIDS)`);
  }
}

function describe(range: HostUidRange): string {
  return `${String(range.first)}-${String(range.first + range.count - 1)}`;
}

function rangeProblem({ first, count }: HostUidRange): string | undefined {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(count) || count < 1) return "not a range of whole numbers";
  if (first < 1) return "it holds uid 0";
  if (first + count - 1 > MAX_UID) return `it ends past uid ${String(MAX_UID)}`;
  const own = [process.getuid?.(), process.geteuid?.(), process.getgid?.()].filter((id): id is number => id !== undefined);
  const mine = own.find((id) => id >= first && id < first + count);
  return mine === undefined ? undefined : `it holds the worker's own id ${String(mine)}`;
}

async function overlap(range: HostUidRange, files: HostIdFiles): Promise<string | undefined> {
  const inRange = (id: number): boolean => id >= range.first && id < range.first + range.count;
  for (const [path, column] of [
    [files.passwd, 2],
    [files.group, 2],
  ] as const) {
    for (const fields of await entries(path)) {
      const id = Number(fields[column]);
      if (inRange(id)) return `it holds id ${String(id)} of ${fields[0] ?? ""} in ${path}`;
    }
  }
  for (const path of [files.subuid, files.subgid]) {
    for (const [owner = "", start = "", size = ""] of await entries(path)) {
      const [from, length] = [Number(start), Number(size)];
      if (from < range.first + range.count && range.first < from + length) return `it overlaps ${owner}'s subordinate ids ${start}+${size} in ${path}`;
    }
  }
  return undefined;
}

async function entries(path: string): Promise<string[][]> {
  const text = await readFile(path, "utf8").catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  });
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split(":"));
}

// Resolves the listening server, or null when the name is taken.
function bind(name: string): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE") resolve(null);
      else reject(new AppError("SANDBOX_UNAVAILABLE", `could not lease a sandbox uid: ${err.message}`, { cause: err }));
    });
    server.listen(name, () => {
      server.unref();
      resolve(server);
    });
  });
}

function unbind(server: Server): Promise<void> {
  return new Promise((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}
