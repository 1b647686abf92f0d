import { access, chown, mkdir, readdir, readFile, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "@reviewbot/core/errors";
import { CGROUP_CONTROLLERS, cgroupLimitWrites, oomKillCount, runCgroupDir, type CgroupController, type CgroupLayout } from "./cgroup-limits.js";
import type { SandboxLimits } from "../sandbox-spec.js";
import type { SandboxUser } from "../uids/sandbox-user.js";

// The kernel frees a cgroup a moment after its last task exits (rmdir answers EBUSY until then):
// poll soon, then back off, so an ordinary run pays about a millisecond, not a fixed interval.
const SETTLE_FIRST_POLL_MS = 1;
const SETTLE_MAX_POLL_MS = 16;
const SETTLE_WAIT_MS = 3_000;

/**
 * True when the host has cgroup v1 memory, pids and cpu hierarchies under `layout.root` and this
 * process is root (only root may create cgroups there).
 */
export async function cgroupV1Available(layout: CgroupLayout): Promise<boolean> {
  if (process.geteuid?.() !== 0) return false;
  // A hierarchy's root has no pids.max; its cgroup.procs shows the pids hierarchy is mounted.
  const probes = ["memory/memory.limit_in_bytes", "pids/cgroup.procs", "cpu/cpu.cfs_quota_us"];
  const present = await Promise.all(probes.map((file) => exists(join(layout.root, file))));
  return present.every(Boolean);
}

/**
 * One bwrap run's cgroups: `<root>/{memory,pids,cpu}/<parent>/<runId>`, limited before any process
 * joins. The sandbox's first process joins by writing its own pid into each `cgroup.procs` (handed
 * to the sandbox user for that), so that bwrap and everything it starts is limited from birth.
 */
export class RunCgroup {
  readonly #dirs: ReadonlyMap<CgroupController, string>;
  #removed = false;

  private constructor(dirs: ReadonlyMap<CgroupController, string>) {
    this.#dirs = dirs;
  }

  /**
   * Creates and limits the run's cgroups; on any failure removes what it made.
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` when a directory or limit cannot be set.
   */
  static async create(
    layout: CgroupLayout,
    runId: string,
    limits: Pick<SandboxLimits, "memoryBytes" | "pids" | "cpus">,
    owner: SandboxUser,
  ): Promise<RunCgroup> {
    const dirs = new Map<CgroupController, string>();
    const cgroup = new RunCgroup(dirs);
    const writes = cgroupLimitWrites(limits);
    try {
      // The hierarchies are independent: set them up side by side (this is on every run's path),
      // and let every one settle before a failure removes what was made.
      const settled = await Promise.allSettled(
        CGROUP_CONTROLLERS.map(async (controller) => {
          const dir = runCgroupDir(layout, controller, runId);
          await mkdir(dirname(dir), { recursive: true });
          await mkdir(dir);
          dirs.set(controller, dir);
          for (const write of writes.filter((candidate) => candidate.controller === controller)) {
            const file = join(dir, write.file);
            if (write.optional && !(await exists(file))) continue;
            await writeFile(file, write.value);
          }
          if (owner.switchUser) await chown(join(dir, "cgroup.procs"), owner.uid, owner.gid);
        }),
      );
      for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
      return cgroup;
    } catch (err) {
      await cgroup.remove().catch(() => undefined);
      throw new AppError("SANDBOX_UNAVAILABLE", `cannot set up cgroup ${runId}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The run's directory in one hierarchy. */
  dir(controller: CgroupController): string {
    const dir = this.#dirs.get(controller);
    if (dir === undefined) throw new Error(`cgroup has no ${controller} directory`);
    return dir;
  }

  /** The files a process writes its pid to in order to join every hierarchy of the run. */
  get procsFiles(): readonly string[] {
    return CGROUP_CONTROLLERS.flatMap((controller) => {
      const dir = this.#dirs.get(controller);
      return dir === undefined ? [] : [join(dir, "cgroup.procs")];
    });
  }

  /** Whether the kernel's OOM killer took a process of this run. */
  async oomKilled(): Promise<boolean> {
    const text = await readFile(join(this.dir("memory"), "memory.oom_control"), "utf8");
    return oomKillCount(text) > 0;
  }

  /** SIGKILLs every process in the run's cgroups, once. */
  async killAll(): Promise<number> {
    const pids = await this.#members();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Exited between the read and the kill.
      }
    }
    return pids.size;
  }

  /**
   * Kills whatever is left (a daemon that escaped the process tree) until the cgroups are empty,
   * then removes them. Idempotent; tries every directory even when one fails.
   *
   * @throws Error when a directory cannot be removed within a few seconds.
   */
  async remove(): Promise<void> {
    if (this.#removed) return;
    const deadline = Date.now() + SETTLE_WAIT_MS;
    for (let poll = SETTLE_FIRST_POLL_MS; (await this.killAll()) > 0 && Date.now() < deadline; poll = Math.min(poll * 2, SETTLE_MAX_POLL_MS)) {
      await sleep(poll);
    }
    const failures: string[] = [];
    await Promise.all(
      [...this.#dirs.values()].map(async (dir) => {
        for (let poll = SETTLE_FIRST_POLL_MS; ; poll = Math.min(poll * 2, SETTLE_MAX_POLL_MS)) {
          try {
            await rmdir(dir);
            return;
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            if (code === "ENOENT") return;
            // EBUSY while the last killed task is still being torn down.
            if (code !== "EBUSY" || Date.now() >= deadline) {
              failures.push(`${dir}: ${code ?? String(err)}`);
              return;
            }
            await sleep(poll);
          }
        }
      }),
    );
    if (failures.length > 0) throw new Error(`cannot remove cgroup directories: ${failures.join(", ")}`);
    this.#removed = true;
  }

  async #members(): Promise<Set<number>> {
    const texts = await Promise.all(this.procsFiles.map((file) => readFile(file, "utf8").catch(() => "")));
    return new Set(
      texts.flatMap((text) =>
        text
          .split("\n")
          .filter((line) => /^\d+$/.test(line))
          .map(Number),
      ),
    );
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Start-up janitor: removes run cgroups older than `maxAgeMs` that a crashed worker left behind,
 * killing anything still in them. Young ones may belong to a live run of another worker process.
 * Returns the directories removed.
 */
export async function reapStaleRunCgroups(layout: CgroupLayout, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const controller of CGROUP_CONTROLLERS) {
    const parent = join(layout.root, controller, layout.parent);
    const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.filter((e) => e.isDirectory())) {
      const dir = join(parent, entry.name);
      const age = now - (await stat(dir)).mtimeMs;
      if (age < maxAgeMs) continue;
      const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
      for (const pid of procs.split("\n").filter((line) => /^\d+$/.test(line))) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await rmdir(dir).then(
        () => removed.push(dir),
        () => undefined,
      );
    }
  }
  return removed;
}
