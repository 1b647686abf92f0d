import { readFile, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { acquireLock, tryLock } from "./cache-lock.js";
import { deleteRefs, jobRefPrefix, listRefs } from "./job-refs.js";
import type { GitContext } from "./run-git.js";

export interface CollectReport {
  readonly removedJobs: readonly string[];
  readonly removedMirrors: readonly string[];
}

export interface CollectOptions {
  readonly root: string;
  readonly lockWaitMs: number;
  readonly mirrorIdleMs: number;
}

/**
 * Removes what no live process owns: job directories whose lock is free or stale (their process
 * died) with their refs, and mirrors idle for `mirrorIdleMs` that no job still references.
 */
export async function collectStale(context: GitContext, options: CollectOptions): Promise<CollectReport> {
  const removedJobs: string[] = [];
  const removedMirrors: string[] = [];
  const jobsDir = join(options.root, "jobs");
  for (const entry of await readdir(jobsDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.endsWith(".lock")) continue;
    const jobDir = join(jobsDir, entry.name);
    const release = await tryLock(jobDir);
    if (release === null) continue;
    try {
      const mirror = await readFile(join(jobDir, "mirror"), "utf8").catch(() => null);
      if (mirror !== null) {
        const unlock = await acquireLock(mirror, options.lockWaitMs);
        await deleteRefs(context, mirror, jobRefPrefix(entry.name)).catch(() => undefined).finally(unlock);
      }
      await rm(jobDir, { recursive: true, force: true });
      removedJobs.push(entry.name);
    } finally {
      await release();
    }
  }
  const mirrorsDir = join(options.root, "mirrors");
  for (const entry of await readdir(mirrorsDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.endsWith(".git")) continue;
    const mirror = join(mirrorsDir, entry.name);
    if (Date.now() - (await stat(mirror)).mtimeMs < options.mirrorIdleMs) continue;
    const release = await tryLock(mirror);
    if (release === null) continue;
    try {
      if ((await listRefs(context, mirror, "refs/reviewbot/jobs/")).length > 0) continue;
      await rm(mirror, { recursive: true, force: true });
      removedMirrors.push(entry.name);
    } finally {
      await release();
    }
  }
  return { removedJobs, removedMirrors };
}
