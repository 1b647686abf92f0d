import { readFile, readdir } from "node:fs/promises";

export interface HostProcess {
  readonly pid: number;
  readonly uids: readonly number[];
  readonly cmdline: string;
}

/**
 * Host processes whose command line or environment holds `marker` (every process of a sandbox
 * inherits the run's environment, so a leftover cannot hide by renaming itself), with their real,
 * effective, saved and filesystem uids.
 */
export async function hostProcessesMarked(marker: string): Promise<HostProcess[]> {
  const found: HostProcess[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = (await readFile(`/proc/${name}/cmdline`).catch(() => Buffer.alloc(0))).toString("utf8").replaceAll("\0", " ");
    const environ = await readFile(`/proc/${name}/environ`).catch(() => Buffer.alloc(0));
    if (!cmdline.includes(marker) && !environ.includes(marker)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
    found.push({ pid: Number(name), uids, cmdline });
  }
  return found;
}
