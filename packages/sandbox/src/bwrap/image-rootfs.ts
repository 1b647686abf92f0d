import { randomUUID } from "node:crypto";
import { chmod, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { AppError } from "@reviewbot/core/errors";
import { exportImage, podman, sanitiseRootfs } from "./image-rootfs-export.js";

/** An image's filesystem, extracted for bubblewrap to use as a sandbox's `/`. */
export interface ImageRootfs {
  readonly reference: string;
  /** Podman's full image ID; the cache key, so a rebuilt tag gets a fresh rootfs. */
  readonly imageId: string;
  readonly rootfs: string;
}

export interface ImageRootfsOptions {
  /** Operator-owned directory; the rootfs lands in `<cacheDir>/rootfs/<imageId>`. */
  readonly cacheDir: string;
  /** How long to wait for another process extracting the same image. */
  readonly lockWaitMs?: number;
}

const IMAGE_ID = /^[0-9a-f]{64}$/;
/** A holder that stopped refreshing its lock this long ago crashed; its lock is taken over. */
const LOCK_STALE_MS = 15_000;
const LOCK_POLL_MS = 250;

/**
 * Resolves `reference` in Podman's local storage and returns its extracted rootfs, exporting it
 * once per image ID. The export goes to a temporary directory renamed into place, so a rootfs that
 * exists is complete; concurrent callers (also in other processes) serialise on a lock per image
 * ID and the losers reuse the winner's directory. Files belong to the worker, keep the image's
 * read bits and lose setuid, setgid and group/world write bits, so the sandbox user can read but
 * never change them.
 *
 * @throws AppError `IMAGE_MISSING` naming the image when it is not in local storage;
 *   `SANDBOX_UNAVAILABLE` when it cannot be exported.
 */
export async function prepareImageRootfs(reference: string, options: ImageRootfsOptions): Promise<ImageRootfs> {
  const imageId = await resolveImageId(reference);
  const parent = join(options.cacheDir, "rootfs");
  await mkdir(parent, { recursive: true });
  // The sandbox user must traverse it whatever the worker's umask.
  await chmod(parent, 0o755);
  const rootfs = join(parent, imageId);
  if (await isDirectory(rootfs)) return { reference, imageId, rootfs };

  const release = await lockRootfs(rootfs, options.lockWaitMs ?? 600_000, reference);
  try {
    if (await isDirectory(rootfs)) return { reference, imageId, rootfs };
    // Holding the lock, any temporary directory of this image is a crashed extraction's.
    for (const entry of await readdir(parent)) {
      if (entry.startsWith(`${imageId}.tmp-`)) await rm(join(parent, entry), { recursive: true, force: true });
    }
    const temporary = `${rootfs}.tmp-${randomUUID()}`;
    await mkdir(temporary);
    try {
      await chmod(temporary, 0o755);
      await exportImage(imageId, temporary);
      await sanitiseRootfs(temporary);
      await rename(temporary, rootfs);
    } catch (err) {
      await rm(temporary, { recursive: true, force: true });
      throw new AppError("SANDBOX_UNAVAILABLE", `cannot extract helper image ${reference}: ${(err as Error).message}`, { cause: err });
    }
    return { reference, imageId, rootfs };
  } finally {
    await release();
  }
}

/**
 * Podman's ID for `reference` (`localhost/reviewbot/base:latest`).
 *
 * @throws AppError `IMAGE_MISSING` naming the image when Podman does not have it.
 */
export async function resolveImageId(reference: string): Promise<string> {
  // References come from the operator's allowlist (validated there); refuse anything podman could
  // read as an option anyway.
  if (reference.startsWith("-") || reference.length === 0) {
    throw new AppError("SANDBOX_UNAVAILABLE", `invalid helper image reference ${JSON.stringify(reference)}`);
  }
  let id: string;
  try {
    id = await podman(["image", "inspect", "--format", "{{.Id}}", reference]);
  } catch (err) {
    throw new AppError("IMAGE_MISSING", `helper image ${reference} is not in Podman's local storage (build it with scripts/setup.sh)`, { cause: err });
  }
  if (!IMAGE_ID.test(id)) throw new AppError("SANDBOX_UNAVAILABLE", `podman returned no image ID for ${reference}`);
  return id;
}

async function lockRootfs(rootfs: string, waitMs: number, reference: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(rootfs, {
      lockfilePath: `${rootfs}.lock`,
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: { retries: Math.ceil(waitMs / LOCK_POLL_MS), factor: 1, minTimeout: LOCK_POLL_MS, maxTimeout: LOCK_POLL_MS },
      // A lost refresh must not crash the worker: the rename keeps the rootfs all-or-nothing.
      onCompromised: () => undefined,
    });
  } catch (err) {
    throw new AppError("SANDBOX_UNAVAILABLE", `rootfs of ${reference} is locked by another extraction`, { cause: err });
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
