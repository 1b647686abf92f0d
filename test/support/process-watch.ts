import { readFile, readdir } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

export interface ProcessWatch {
  /** Stops polling; resolves to every distinct command line seen (argv joined by spaces). */
  stop(): Promise<string[]>;
}

/**
 * Polls `/proc/<pid>/cmdline` of every process on the host until stopped: what `ps -eo args`
 * shows any local user. Used to prove that a secret never travels in argv.
 */
export function watchCommandLines(intervalMs = 2): ProcessWatch {
  const seen = new Set<string>();
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
      await Promise.all(
        pids.map(async (pid) => {
          const raw = await readFile(`/proc/${pid}/cmdline`).catch(() => null);
          if (raw !== null && raw.length > 0) seen.add(raw.toString("utf8").replaceAll("\0", " ").trim());
        }),
      );
      await sleep(intervalMs);
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
      return [...seen];
    },
  };
}
