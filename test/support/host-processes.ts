import { readFile, readdir } from "node:fs/promises";

/**
 * Host processes whose command line or environment holds `marker` (every process of a sandbox
 * inherits the run's environment, so a leftover cannot hide by renaming itself), with their uid.
 */
export async function hostProcessesMarked(marker: string): Promise<{ pid: number; uid: number; cmdline: string }[]> {
  const found: { pid: number; uid: number; cmdline: string }[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = (await readFile(`/proc/${name}/cmdline`).catch(() => Buffer.alloc(0))).toString("utf8").replaceAll("\0", " ");
    const environ = await readFile(`/proc/${name}/environ`).catch(() => Buffer.alloc(0));
    if (!cmdline.includes(marker) && !environ.includes(marker)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    found.push({ pid: Number(name), uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1), cmdline });
  }
  return found;
}
