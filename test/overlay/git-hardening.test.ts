import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { checkoutFork, expectAppError, forkRequest, jobEntries, onlyMirror, openCache } from "../support/clone-cache-harness.js";
import { startConnectionRecorder } from "../support/connection-recorder.js";
import { gitAsync, gitText } from "../support/git-env.js";
import { createUpstream } from "../support/git-fixture.js";
import { nestTree, rootEntries, treeWithPaths, withRootEntries, writeBlob, type TreeEntry } from "../support/git-trees.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();

function hookScript(canary: string): string {
  return `#!/bin/sh\ntouch '${canary}'\n`;
}

describe("git hardening: what a fork's bytes cannot make git do", () => {
  it("an embedded bare repository with core.fsmonitor never runs its command", async () => {
    const root = await tempDir("fsmonitor");
    const canary = join(root, "fsmonitor-ran");
    const upstream = createUpstream(root);
    upstream.commitOn("fork", (tree) => {
      tree.write("evil/HEAD", "ref: refs/heads/main\n");
      // bare = false with a worktree makes `git status` inside it consult fsmonitor (CVE-2022-24765 class).
      tree.write("evil/config", `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${canary}"\n`);
      tree.write("evil/objects/info/.keep", "");
      tree.write("evil/refs/heads/.keep", "");
    });

    const co = await checkoutFork(root, upstream);

    expect(readFileSync(join(co.dir, "evil/config"), "utf8")).toContain("fsmonitor");
    expect(existsSync(canary)).toBe(false);
    // Negative control: the payload is live. Any git that discovers the embedded repository from
    // inside the work tree (an IDE, a helper) runs it; the checkout itself never did.
    await gitAsync(upstream.home, join(co.dir, "evil"), ["status"]);
    expect(existsSync(canary)).toBe(true);
    await co.release();
  });

  const hostileNames: readonly (readonly [string, readonly string[], RegExp])[] = [
    ["a tree entry named .git holding hooks/post-checkout", [".git", "hooks"], /hasDotgit/],
    ["a path .ai/../.git/hooks/post-checkout", [".ai", "..", ".git", "hooks"], /hasDotdot|hasDotgit/],
    ["a tree entry named .GIT (case variant)", [".GIT", "hooks"], /hasDotgit/],
  ];

  it.each(hostileNames)("%s is refused at fetch (fsck) and no hook runs", async (_name, names, fsckMessage) => {
    const root = await tempDir("dotgit");
    const canary = join(root, "hook-ran");
    const upstream = createUpstream(root);
    const hook: TreeEntry = { mode: "100755", name: "post-checkout", sha: writeBlob(upstream, hookScript(canary)) };
    const hostile = rootEntries(upstream, nestTree(upstream, names, hook));
    upstream.commitTreeOn("fork", withRootEntries(upstream, "fork", hostile));
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);

    const error = await expectAppError(cache.checkout(forkRequest(upstream)), "GIT_FAILED");

    expect(error.message).toMatch(fsckMessage);
    expect(await jobEntries(cacheRoot)).toEqual([]);
    expect(existsSync(canary)).toBe(false);
  });

  it("hooks planted in the mirror never run (core.hooksPath=/dev/null)", async () => {
    const root = await tempDir("mirror-hooks");
    const canary = join(root, "mirror-hook-ran");
    const upstream = createUpstream(root);
    upstream.commitOn("fork", (tree) => {
      tree.write("a.txt", "1\n");
    });
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);
    await (await cache.checkout(forkRequest(upstream))).release();
    const mirror = await onlyMirror(cacheRoot);
    mkdirSync(join(mirror, "hooks"), { recursive: true });
    for (const hook of ["reference-transaction", "post-checkout", "post-index-change", "pre-auto-gc", "fsmonitor-watchman"]) {
      writeFileSync(join(mirror, "hooks", hook), hookScript(canary));
      chmodSync(join(mirror, "hooks", hook), 0o755);
    }

    upstream.commitOn("fork", (tree) => {
      tree.write("a.txt", "2\n");
    });
    const co = await cache.checkout(forkRequest(upstream));
    await co.release();
    expect(existsSync(canary)).toBe(false);

    // Negative control: a plain git on the same mirror runs the planted reference-transaction hook.
    gitText(upstream.home, root, [`--git-dir=${mirror}`, "update-ref", "refs/control", upstream.rev("main")]);
    expect(existsSync(canary)).toBe(true);
  });

  it("a .gitmodules submodule with an ext:: URL is never cloned or run", async () => {
    const root = await tempDir("submodule");
    const canary = join(root, "ext-ran");
    const upstream = createUpstream(root);
    const gitmodules = `[submodule "evil"]\n\tpath = evil\n\turl = ext::sh -c touch% ${canary}\n`;
    const tree = treeWithPaths(upstream, "fork^{tree}", [
      { mode: "100644", path: ".gitmodules", sha: writeBlob(upstream, gitmodules) },
      { mode: "160000", path: "evil", sha: upstream.rev("main") },
    ]);
    upstream.commitTreeOn("fork", tree);

    const co = await checkoutFork(root, upstream);

    expect(existsSync(canary)).toBe(false);
    const submoduleDir = join(co.dir, "evil");
    expect(existsSync(submoduleDir) ? readdirSync(submoduleDir) : []).toEqual([]);
    await co.release();
    // Negative control: git with ext:: allowed and submodules recursed runs the payload.
    await gitAsync(upstream.home, root, [
      "-c",
      "protocol.ext.allow=always",
      "clone",
      "--quiet",
      "--recurse-submodules",
      "--branch",
      "fork",
      upstream.dir,
      join(root, "plain"),
    ]);
    expect(existsSync(canary)).toBe(true);
  });

  it("an .lfsconfig pointing at a loopback listener causes no connection", async () => {
    const root = await tempDir("lfs");
    const listener = await startConnectionRecorder();
    try {
      const upstream = createUpstream(root);
      const pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
      upstream.commitTreeOn(
        "fork",
        treeWithPaths(upstream, "fork^{tree}", [
          { mode: "100644", path: ".lfsconfig", sha: writeBlob(upstream, `[lfs]\n\turl = http://127.0.0.1:${listener.port}/lfs\n`) },
          { mode: "100644", path: ".gitattributes", sha: writeBlob(upstream, "* filter=lfs diff=lfs merge=lfs -text\n") },
          { mode: "100644", path: "assets/big.bin", sha: writeBlob(upstream, pointer) },
          { mode: "100644", path: ".ai/model.bin", sha: writeBlob(upstream, pointer) },
        ]),
      );

      const co = await checkoutFork(root, upstream);
      await sleep(500);

      expect(listener.connections).toEqual([]);
      expect(readFileSync(join(co.dir, "assets/big.bin"), "utf8")).toBe(pointer);
      await co.release();
      // git-lfs is not installed on these hosts, so no unhardened control can smudge the pointer;
      // the control here is that the listener does record a connection when one is made.
      await new Promise<void>((resolve, reject) => connect(listener.port, "127.0.0.1", resolve).on("error", reject).unref());
      await sleep(50);
      expect(listener.connections).toHaveLength(1);
    } finally {
      await listener.close();
    }
  });

  it("ignores the worker's own git environment (GIT_TRACE, GIT_CONFIG_GLOBAL, GIT_DIR)", async () => {
    const root = await tempDir("worker-env");
    const upstream = createUpstream(root);
    upstream.commitOn("fork", (tree) => {
      tree.write("a.txt", "1\n");
    });
    const trace = join(root, "trace.log");
    const hostileConfig = join(root, "hostile.gitconfig");
    writeFileSync(hostileConfig, `[url "file:///nonexistent/"]\n\tinsteadOf = file://\n[core]\n\tfsmonitor = "touch ${join(root, "cfg-ran")}"\n`);
    const saved = { ...process.env };
    Object.assign(process.env, { GIT_TRACE: trace, GIT_CONFIG_GLOBAL: hostileConfig, GIT_DIR: join(root, "nowhere"), GIT_CONFIG_NOSYSTEM: "0" });
    try {
      const co = await checkoutFork(root, upstream);
      expect(readFileSync(join(co.dir, "a.txt"), "utf8")).toBe("1\n");
      await co.release();
    } finally {
      for (const key of ["GIT_TRACE", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_CONFIG_NOSYSTEM"]) {
        if (saved[key] === undefined) Reflect.deleteProperty(process.env, key);
        else process.env[key] = saved[key];
      }
    }
    expect(existsSync(trace)).toBe(false);
    expect(existsSync(join(root, "cfg-ran"))).toBe(false);
  });
});
