import { randomInt } from "node:crypto";
import type { HostUidRange } from "./host-uid-pool.js";

/**
 * Container uids of a rootless (or userns-remapped) engine: inside the 65,536 subordinate ids a
 * user usually has (container uids 1-65536), clear of the images' own users (below 10,000, 10001,
 * nobody's 65534). Each is a host uid of the user's subordinate range of its own.
 */
export const NAMESPACED_SANDBOX_UIDS: HostUidRange = { first: 20_000, count: 40_000 };

/** How many names one run tries before it fails: the range is far larger than the runs in flight. */
const MAX_TRIES = 64;

/** One candidate: the uid and the container name that holds it. */
export interface UidName {
  readonly uid: number;
  readonly name: string;
}

/**
 * Uids leased through the daemon that every worker using it shares: a run's container is named
 * after its uid (`reviewbot-uid-<uid>`) and the daemon refuses a second container of that name
 * (HTTP 409) until the first is removed, whichever worker, host or network namespace asked. A
 * crashed worker's container keeps its uid until the janitor removes it: its processes may remain.
 */
export class DaemonUidNames {
  readonly range: HostUidRange;
  /** True when the worker can hand a run's writable mounts to its uid (a root worker, host uids). */
  readonly handsOverMounts: boolean;
  // A random start per worker: workers sharing a daemon seldom try the same names.
  #cursor: number;

  constructor(range: HostUidRange, handsOverMounts: boolean) {
    this.range = range;
    this.handsOverMounts = handsOverMounts;
    this.#cursor = randomInt(range.count);
  }

  /** The next names to try for one run, round robin over the range. */
  *candidates(): Generator<UidName> {
    for (let tried = 0; tried < Math.min(MAX_TRIES, this.range.count); tried += 1) {
      const uid = this.range.first + this.#cursor;
      this.#cursor = (this.#cursor + 1) % this.range.count;
      yield { uid, name: `reviewbot-uid-${String(uid)}` };
    }
  }
}
