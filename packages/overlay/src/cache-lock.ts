import { setTimeout as sleep } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { AppError } from "@reviewbot/core/errors";

export type ReleaseLock = () => Promise<void>;

/** A lock is stale when its holder stopped refreshing it this long ago (it crashed). */
const STALE_MS = 15_000;
const POLL_MS = 100;

/**
 * Takes the cross-process lock `<path>.lock` (an mkdir lock refreshed while held, so a crashed
 * holder's lock goes stale and is taken over). Waits up to `waitMs`, then fails LOCK_TIMEOUT.
 */
export async function acquireLock(path: string, waitMs: number): Promise<ReleaseLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const release = await tryLock(path);
    if (release !== null) return release;
    if (Date.now() >= deadline) {
      throw new AppError("LOCK_TIMEOUT", `lock ${path}.lock still held after ${waitMs} ms`);
    }
    await sleep(POLL_MS);
  }
}

/** Takes the lock if it is free or stale; null when a live holder has it. */
export async function tryLock(path: string): Promise<ReleaseLock | null> {
  try {
    return await lockfile.lock(path, {
      lockfilePath: `${path}.lock`,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      // A compromised lock (refresh failed) must not crash the worker; git's own ref locks still
      // keep the mirror consistent, and the job that held it finishes or fails on its own.
      onCompromised: () => undefined,
    });
  } catch (err) {
    if ((err as { code?: unknown }).code === "ELOCKED") return null;
    throw err;
  }
}
