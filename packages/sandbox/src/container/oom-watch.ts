import { readFile } from "node:fs/promises";
import { oomKillCount } from "../bwrap/cgroup-limits.js";

const POLL_MS = 25;

/**
 * Watches a container's cgroup v1 `memory.oom_control` while it runs. Podman 4 on cgroup v1 never
 * reports OOM kills, and a kill of a child process (the helper's `sort`, not the helper) leaves no
 * trace in the exit status; the kernel's counter lives in the container's own memory cgroup, which
 * the engine deletes right after exit. So it is read while the container runs and once more when
 * its output ends.
 */
export class OomWatch {
  readonly #file: string;
  readonly #timer: NodeJS.Timeout;
  #killed = false;

  constructor(memoryCgroupDir: string) {
    this.#file = `${memoryCgroupDir}/memory.oom_control`;
    this.#timer = setInterval(() => void this.#read(), POLL_MS).unref();
  }

  /** Stops watching; true when the kernel OOM-killed any process of the container. */
  async stop(): Promise<boolean> {
    clearInterval(this.#timer);
    await this.#read();
    return this.#killed;
  }

  async #read(): Promise<void> {
    const text = await readFile(this.#file, "utf8").catch(() => "");
    if (oomKillCount(text) > 0) this.#killed = true;
  }
}
