import { readFile } from "node:fs/promises";

const TICKS_PER_SECOND = 100;

/**
 * CPU time a process has used so far (user + system, every thread), in microseconds, from
 * /proc/<pid>/stat (clock ticks of 10 ms: read it across thousands of requests, not one).
 */
export async function processCpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}
