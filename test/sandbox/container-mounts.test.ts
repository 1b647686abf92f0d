import { chown, lstat, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import type { SandboxMount } from "@reviewbot/sandbox/sandbox-spec";
import { shellSpec } from "../support/sandbox-specs.js";
import { CONTAINER_ENGINES } from "../support/container-engines.js";
import type { ContainerEngineFixture } from "../support/podman-engine.js";
import { reachableTempDir } from "../support/temp-dirs.js";

const mount = (source: string, target = "/opt/reviewbot/deps", writable = false): SandboxMount => ({ source, target, writable });

describe.each(CONTAINER_ENGINES)("container engine ($name): extra mounts", ({ open }) => {
  let fixture: ContainerEngineFixture;
  let stateDir: string;
  let worktree: string;
  let outside: string;
  let engine: ContainerEngine;

  beforeAll(async () => {
    fixture = await open("mounts");
    ({ stateDir, worktree, engine } = fixture);
    outside = await reachableTempDir("outside");
    await mkdir(join(stateDir, "deps", "ro"), { recursive: true });
    await writeFile(join(stateDir, "deps", "ro", "lib.txt"), "cached\n");
    await mkdir(join(stateDir, "deps", "rw"), { recursive: true });
    await symlink(outside, join(stateDir, "deps", "link"));
    await writeFile(join(stateDir, "deps", "file"), "");
  });

  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
    await fixture.close();
  });

  it("mounts a read-only directory and a writable, noexec, nosuid, nodev one from its state directory", async () => {
    const script = [
      "cat /opt/reviewbot/deps/lib.txt",
      "touch /opt/reviewbot/deps/x 2>/dev/null && echo ro=writable || echo ro=read-only",
      "cp /bin/true /run/reviewbot/out/true && echo rw=writable",
      "/run/reviewbot/out/true 2>/dev/null && echo rw=exec || echo rw=noexec",
      "echo \"rw_options=$(grep ' /run/reviewbot/out ' /proc/mounts | cut -d' ' -f4)\"",
      // A link to a host directory: handing the mount back must change the link, never its target.
      `ln -s ${outside} /run/reviewbot/out/outside-link`,
    ].join("\n");
    await chown(outside, 4242, 4242);
    const result = await engine.run(
      shellSpec(worktree, script, { mounts: [mount(join(stateDir, "deps", "ro")), mount(join(stateDir, "deps", "rw"), "/run/reviewbot/out", true)] }),
    );
    const [first, second, third, fourth, options = ""] = result.stdout.toString().split("\n");
    expect([first, second, third, fourth]).toEqual(["cached", "ro=read-only", "rw=writable", "rw=noexec"]);
    expect(options.replace("rw_options=", "").split(",")).toEqual(expect.arrayContaining(["rw", "nosuid", "nodev", "noexec"]));
    // Afterwards the directory is the worker's again (the link itself, never /etc), and no longer a mount point.
    for (const path of ["rw", "rw/true", "rw/outside-link"]) expect((await lstat(join(stateDir, "deps", path))).uid, path).toBe(process.getuid?.());
    expect((await lstat(outside)).uid).toBe(4242);
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(join(stateDir, "deps", "rw"));
  });

  it.each([
    ["a source outside the state directory", () => [mount(outside)], /is not under the engine's state directory/],
    ["a source reached through a symbolic link", () => [mount(join(stateDir, "deps", "link"))], /symbolic link/],
    ["a source that is a file", () => [mount(join(stateDir, "deps", "file"))], /is not a directory/],
    ["a relative source", () => [mount("deps/ro")], /not a normalised absolute path/],
    ["a source with ..", () => [mount(`${stateDir}/deps/../../etc`)], /not a normalised absolute path/],
    ["a source with a comma", () => [mount(`${stateDir}/deps/ro,rw`)], /comma or colon/],
    ["a target over the image", () => [mount(join(stateDir, "deps", "ro"), "/usr/bin")], /is not under \/opt\/reviewbot\/ or \/run\/reviewbot\//],
    ["a target over the work tree", () => [mount(join(stateDir, "deps", "ro"), "/work")], /is not under/],
    ["a target with ..", () => [mount(join(stateDir, "deps", "ro"), "/opt/reviewbot/../../etc")], /not a normalised absolute path/],
    ["two overlapping targets", () => [mount(join(stateDir, "deps", "ro")), mount(join(stateDir, "deps", "rw"), "/opt/reviewbot/deps/node")], /overlaps/],
  ])("refuses %s before creating anything", async (_label, mounts, reason) => {
    await expect(engine.run(shellSpec(worktree, "true", { mounts: mounts() }))).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringMatching(reason) as unknown,
    });
  });
});
