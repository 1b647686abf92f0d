import { execFile } from "node:child_process";
import { chmod, lstat, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { inheritedEnv } from "@reviewbot/core/inherited-env";

const run = promisify(execFile);

const PODMAN = "/usr/bin/podman";
const TAR = "/usr/bin/tar";
const FIND = "/usr/bin/find";
const PODMAN_TIMEOUT_MS = 600_000;

// Podman needs to find its storage and configuration; nothing else of the worker's environment
// (tokens, proxies) is passed on.
const PODMAN_ENV: Readonly<Record<string, null>> = {
  PATH: null,
  HOME: null,
  TMPDIR: null,
  XDG_RUNTIME_DIR: null,
  XDG_CONFIG_HOME: null,
  XDG_DATA_HOME: null,
  CONTAINERS_CONF: null,
  CONTAINERS_STORAGE_CONF: null,
};

/** Mount points bwrap binds over; it cannot create them in a read-only root. */
const ROOTFS_MOUNT_POINTS = ["work", "tmp", "proc", "dev", "sys/fs/cgroup/memory", "sys/fs/cgroup/pids"];

/** Runs podman with an allowlisted environment; stdout, trimmed. */
export async function podman(args: readonly string[]): Promise<string> {
  const { stdout } = await run(PODMAN, args, { env: inheritedEnv(PODMAN_ENV), timeout: PODMAN_TIMEOUT_MS, maxBuffer: 1024 * 1024 });
  return stdout.trim();
}

/**
 * Writes the flattened filesystem of image `imageId` into the empty directory `dest`: a container
 * is created (never started) and exported, and the archive extracted by tar as files of the worker
 * (`--no-same-owner`). Device nodes under /dev are skipped (bwrap mounts its own /dev). The archive
 * goes through a file next to `dest`: podman export cannot write to the socket Node gives a child as
 * its stdout.
 */
export async function exportImage(imageId: string, dest: string): Promise<void> {
  const archive = `${dest}.tar`;
  const container = await podman(["create", "--label", "reviewbot.purpose=rootfs-export", imageId, "true"]);
  try {
    await podman(["export", "--output", archive, container]);
    const tar = ["-x", "--no-same-owner", "--anchored", "--exclude=dev/*", "-C", dest, "-f", archive];
    await run(TAR, tar, { env: { LC_ALL: "C" }, timeout: PODMAN_TIMEOUT_MS, maxBuffer: 1024 * 1024 });
  } finally {
    await rm(archive, { force: true });
    await podman(["rm", "--force", container]).catch(() => undefined);
  }
}

/**
 * Makes an extracted rootfs safe to share with sandboxes: no setuid or setgid bit, nothing group-
 * or world-writable, no device node, FIFO or socket; mount points present as real directories.
 */
export async function sanitiseRootfs(root: string): Promise<void> {
  await run(
    FIND,
    [
      root,
      ...["(", "-type", "b", "-o", "-type", "c", "-o", "-type", "p", "-o", "-type", "s", ")", "-delete"],
      ...["-o", "!", "-type", "l", "-perm", "/6022", "-exec", "/bin/chmod", "ug-s,go-w", "{}", "+"],
    ],
    { env: { LC_ALL: "C", PATH: "/usr/bin:/bin" }, timeout: PODMAN_TIMEOUT_MS },
  );
  for (const mountPoint of ROOTFS_MOUNT_POINTS) await ensureDirectory(root, mountPoint);
}

// mkdir one component at a time and refuse symlinks: a `sys -> /` in an image must not make us
// create directories on the host.
async function ensureDirectory(root: string, relative: string): Promise<void> {
  let path = root;
  for (const component of relative.split("/")) {
    path = join(path, component);
    const info = await lstat(path).catch(() => null);
    if (info === null) {
      await mkdir(path);
      await chmod(path, 0o755);
    } else if (!info.isDirectory()) throw new Error(`image path /${relative} is not a directory`);
  }
}
