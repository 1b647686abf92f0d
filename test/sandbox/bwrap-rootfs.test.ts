import { execFile } from "node:child_process";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { prepareImageRootfs } from "@reviewbot/sandbox/image-rootfs";
import { BASE_IMAGE } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

const run = promisify(execFile);
const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function cacheDir(): Promise<string> {
  const dir = await reachableTempDir("bwrap-rootfs");
  made.push(dir);
  return dir;
}

// Another worker process preparing the same image at the same time.
const PREPARE_IN_CHILD = `
import { prepareImageRootfs } from "@reviewbot/sandbox/image-rootfs";
const prepared = await prepareImageRootfs(process.argv[1], { cacheDir: process.argv[2] });
process.stdout.write(prepared.rootfs);
`;

describe("image rootfs", () => {
  it("extracts an image once, safely, when several processes ask at the same time", async () => {
    const dir = await cacheDir();
    const cwd = fileURLToPath(new URL("..", import.meta.url));
    const children = [1, 2].map(() => run(process.execPath, ["--input-type=module", "-e", PREPARE_IN_CHILD, BASE_IMAGE, dir], { cwd }));
    const [own, ...others] = await Promise.all([prepareImageRootfs(BASE_IMAGE, { cacheDir: dir }), ...children]);
    expect(others.map((child) => child.stdout)).toEqual([own.rootfs, own.rootfs]);
    expect(own.rootfs).toBe(join(dir, "rootfs", own.imageId));
    expect(own.imageId).toMatch(/^[0-9a-f]{64}$/);
    // No temporary directory or archive left; only the rootfs and its lock's absence.
    expect(await readdir(join(dir, "rootfs"))).toEqual([own.imageId]);

    expect(await readFile(join(own.rootfs, "etc/passwd"), "utf8")).toMatch(/^[^:]+:[^:]*:10001:10001:/m);
    // Owned by the worker, nothing setuid/setgid, nothing writable by group or others, no devices.
    const { stdout: unsafe } = await run("find", [
      own.rootfs,
      "(",
      "!",
      "-user",
      "root",
      "-o",
      "-perm",
      "/6022",
      "-o",
      "-type",
      "c",
      "-o",
      "-type",
      "b",
      ")",
      "!",
      "-type",
      "l",
    ]);
    expect(unsafe).toBe("");
    for (const mountPoint of ["work", "tmp", "proc", "dev", "sys/fs/cgroup/memory", "sys/fs/cgroup/pids"]) {
      expect((await readdir(join(own.rootfs, mountPoint))).length, mountPoint).toBe(0);
    }
  });

  it("reuses the extracted rootfs", async () => {
    const dir = await cacheDir();
    const first = await prepareImageRootfs(BASE_IMAGE, { cacheDir: dir });
    const started = performance.now();
    const second = await prepareImageRootfs(BASE_IMAGE, { cacheDir: dir });
    expect(second).toEqual(first);
    // Only the image lookup, no export.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("names an image Podman does not have", async () => {
    const image = "localhost/reviewbot/no-such-image:latest";
    await expect(prepareImageRootfs(image, { cacheDir: await cacheDir() })).rejects.toMatchObject({
      code: "IMAGE_MISSING",
      message: expect.stringContaining(image) as unknown,
    });
  });
});
