import { bindNoexec } from "./noexec-bind.js";
import { ownTree } from "../uids/own-tree.js";
import type { RunUid } from "../uids/run-uid.js";
import { ownIds } from "../uids/sandbox-user.js";

/**
 * A run's writable mounts (their host sources): handed to the run's uid before its container
 * starts, and the worker's again once its processes are gone.
 */
export class WritableMounts {
  readonly #dirs: readonly string[];
  readonly #uid: RunUid;
  readonly #noexecBinds: boolean;
  readonly #undo: (() => Promise<void>)[] = [];

  /** `noexecBinds`: each source also becomes a noexec mount of its own for the run (Docker). */
  constructor(dirs: readonly string[], uid: RunUid, noexecBinds: boolean) {
    this.#dirs = dirs;
    this.#uid = uid;
    this.#noexecBinds = noexecBinds;
  }

  async handOver(): Promise<void> {
    // Mounted only at start: the run's writable mounts become its own before.
    await Promise.all(this.#dirs.map((dir) => ownTree(dir, this.#uid, { topOnly: true })));
    // Docker cannot be told noexec for a bind: the source becomes a noexec mount of its own.
    if (this.#noexecBinds) for (const dir of this.#dirs) this.#undo.push(await bindNoexec(dir));
  }

  /**
   * Makes the mounts the worker's again (when the run's uid was its own) and undoes the noexec
   * mounts `handOver` made; call once the run's container is removed, never while its processes
   * may live.
   */
  async takeBack(): Promise<void> {
    if (this.#uid.own) await Promise.all(this.#dirs.map((dir) => ownTree(dir, ownIds())));
    for (const unmount of this.#undo) await unmount();
  }
}
