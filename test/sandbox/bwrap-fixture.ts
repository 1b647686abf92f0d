import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { DEFAULT_CGROUP_LAYOUT } from "@reviewbot/sandbox/cgroup-limits";
import { BASE_IMAGE } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

/** The directories a bwrap suite shares; filled in by `beforeAll`. */
export interface BwrapFixture {
  engine: BwrapEngine;
  /** A worktree the sandbox user can reach, holding `hello.txt`. */
  worktree: string;
  cacheDir: string;
}

/**
 * Creates an engine over the base image (extracted into a fresh cache) and a worktree, and removes
 * both afterwards. A missing image or sandbox user makes `beforeAll` throw: the suite fails with
 * the engine's message, it never skips.
 */
export function useBwrapEngine(): BwrapFixture {
  const fixture = {} as BwrapFixture;
  beforeAll(async () => {
    fixture.cacheDir = await reachableTempDir("bwrap-cache");
    fixture.worktree = await reachableTempDir("bwrap-worktree");
    await writeFile(join(fixture.worktree, "hello.txt"), "hello from the work tree\n");
    fixture.engine = await BwrapEngine.create({ images: [BASE_IMAGE], cacheDir: fixture.cacheDir });
    for (const dir of await runCgroups()) baseline.add(dir);
  });
  afterAll(async () => {
    await fixture.engine.close();
    await rm(fixture.cacheDir, { recursive: true, force: true });
    await rm(fixture.worktree, { recursive: true, force: true });
  });
  return fixture;
}

/** Run directories under `/sys/fs/cgroup/<controller>/reviewbot/` when the suite started (another process's). */
const baseline = new Set<string>();

/** Run directories left under `/sys/fs/cgroup/<controller>/reviewbot/` since the suite started. */
export async function leftoverRunCgroups(): Promise<string[]> {
  return (await runCgroups()).filter((dir) => !baseline.has(dir));
}

async function runCgroups(): Promise<string[]> {
  const left: string[] = [];
  for (const controller of ["memory", "pids", "cpu"]) {
    const parent = join(DEFAULT_CGROUP_LAYOUT.root, controller, DEFAULT_CGROUP_LAYOUT.parent);
    const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) left.push(join(parent, entry.name));
  }
  return left;
}
