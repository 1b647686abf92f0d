import { join } from "node:path";
import type { SandboxLimits } from "../sandbox-spec.js";

/** The cgroup v1 hierarchies a bwrap run is limited by. */
export const CGROUP_CONTROLLERS = ["memory", "pids", "cpu"] as const;
export type CgroupController = (typeof CGROUP_CONTROLLERS)[number];

/** One value written into a control file of the run's cgroup, in order. */
export interface CgroupWrite {
  readonly controller: CgroupController;
  readonly file: string;
  readonly value: string;
  /** Skipped when the kernel lacks the file (memsw exists only with swap accounting). */
  readonly optional: boolean;
}

/** The CFS period the CPU quota is expressed in (the kernel's default, 100 ms). */
export const CFS_PERIOD_US = 100_000;
// The kernel refuses quotas below 1 ms.
const MIN_CFS_QUOTA_US = 1_000;

/**
 * The control-file writes that apply `limits` to a fresh cgroup v1 run directory. The memory
 * limit comes first: memsw (memory + swap) must never be below it, and setting both to the same
 * value gives the run no extra swap. CPUs become a CFS quota per period.
 */
export function cgroupLimitWrites(limits: Pick<SandboxLimits, "memoryBytes" | "pids" | "cpus">): readonly CgroupWrite[] {
  const memory = String(limits.memoryBytes);
  const quota = Math.max(MIN_CFS_QUOTA_US, Math.round(limits.cpus * CFS_PERIOD_US));
  return [
    { controller: "memory", file: "memory.limit_in_bytes", value: memory, optional: false },
    { controller: "memory", file: "memory.memsw.limit_in_bytes", value: memory, optional: true },
    { controller: "pids", file: "pids.max", value: String(limits.pids), optional: false },
    { controller: "cpu", file: "cpu.cfs_period_us", value: String(CFS_PERIOD_US), optional: false },
    { controller: "cpu", file: "cpu.cfs_quota_us", value: String(quota), optional: false },
  ];
}

/** Where the run cgroups of one worker host live: `<root>/<controller>/<parent>/<runId>`. */
export interface CgroupLayout {
  readonly root: string;
  readonly parent: string;
}

export const DEFAULT_CGROUP_LAYOUT: CgroupLayout = { root: "/sys/fs/cgroup", parent: "reviewbot" };

const PATH_COMPONENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The directory of one run in one hierarchy. The parent and run id are ours (a config constant and
 * a UUID), checked anyway so that no path of this function leaves `<root>/<controller>`.
 */
export function runCgroupDir(layout: CgroupLayout, controller: CgroupController, runId: string): string {
  for (const component of [layout.parent, runId]) {
    if (!PATH_COMPONENT.test(component)) throw new Error(`invalid cgroup path component ${JSON.stringify(component)}`);
  }
  return join(layout.root, controller, layout.parent, runId);
}

/**
 * Reads `oom_kill <n>` from memory.oom_control: how many processes the kernel's OOM killer took in
 * this cgroup (kernel ≥ 4.13).
 */
export function oomKillCount(oomControl: string): number {
  const match = /^oom_kill (\d+)$/m.exec(oomControl);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}
