import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyTrustedOverlay } from "@reviewbot/overlay/trusted-overlay";
import { checkoutFork, gitContext, onlyMirror } from "../support/clone-cache-harness.js";
import { createUpstream } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";
import { snapshotDir } from "../support/tree-snapshot.js";
import { expectAiMatchesBase } from "../support/worktree-assertions.js";

const tempDir = useTempDirs();

describe("applyTrustedOverlay fails closed", () => {
  async function preparedWorktree(label: string) {
    const root = await tempDir(label);
    const upstream = createUpstream(root);
    const co = await checkoutFork(root, upstream);
    const mirror = await onlyMirror(join(root, "cache"));
    return { root, upstream, co, mirror };
  }

  it("removes .ai when the trusted commit is unknown (null) and says it failed closed", async () => {
    const { upstream, co, mirror } = await preparedWorktree("closed-null");
    writeFileSync(join(co.dir, ".ai", "review-tools.json"), "fork config\n");

    const result = await applyTrustedOverlay(gitContext(upstream.home), mirror, co.dir, null);

    expect(result).toMatchObject({ source: "failed-closed", failedClosed: true, commit: null, files: [] });
    expect(result.reason).toMatch(/trusted commit/);
    expect(() => lstatSync(join(co.dir, ".ai"))).toThrow(/ENOENT/);
    await co.release();
  });

  it("removes .ai when the trusted commit is not in the mirror", async () => {
    const { upstream, co, mirror } = await preparedWorktree("closed-missing");
    const missing = { from: "ref", ref: "refs/heads/main", sha: "deadbeef".repeat(5) } as const;

    const result = await applyTrustedOverlay(gitContext(upstream.home), mirror, co.dir, missing);

    expect(result).toMatchObject({ source: "failed-closed", failedClosed: true, commit: missing, files: [] });
    expect(() => lstatSync(join(co.dir, ".ai"))).toThrow(/ENOENT/);
    await co.release();
  });

  it.each([
    ["unknown", false],
    ["readable", true],
  ] as const)("replaces a .ai symlink without touching what it points to (base %s)", async (_label, baseReadable) => {
    const { root, upstream, co, mirror } = await preparedWorktree("overlay-symlink");
    const outside = join(root, "outside");
    mkdirSync(outside);
    // Named like base files: writing through the link would overwrite them.
    writeFileSync(join(outside, "review-tools.json"), "keep me\n");
    const before = snapshotDir(outside);
    await rm(join(co.dir, ".ai"), { recursive: true });
    symlinkSync(outside, join(co.dir, ".ai"));

    const trusted = { from: "base", ref: "main", sha: co.baseSha } as const;
    const result = await applyTrustedOverlay(gitContext(upstream.home), mirror, co.dir, baseReadable ? trusted : null);

    expect(result.failedClosed).toBe(!baseReadable);
    if (baseReadable) expectAiMatchesBase(upstream, "main", co.dir);
    else expect(() => lstatSync(join(co.dir, ".ai"))).toThrow(/ENOENT/);
    expect(snapshotDir(outside)).toEqual(before);
    await co.release();
  });
});
