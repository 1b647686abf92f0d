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
  // A job is its directory and/or its lock: a crash between taking the lock and creating the
  // directory leaves only a (stale) lock, which is reaped the same way.
  const jobIds = new Set((await readdir(jobsDir)).map((name) => name.replace(/\.lock$/, "")));
  for (const jobId of jobIds) {
    const jobDir = join(jobsDir, jobId);
    const release = await tryLock(jobDir);
    if (release === null) continue;
    try {
      const mirror = await readFile(join(jobDir, "mirror"), "utf8").catch(() => null);
      if (mirror !== null) {
        const unlock = await acquireLock(mirror, options.lockWaitMs);
        await deleteRefs(context, mirror, jobRefPrefix(jobId))
          .catch(() => undefined)
          .finally(unlock);
      }
      await rm(jobDir, { recursive: true, force: true });
      removedJobs.push(jobId);
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
