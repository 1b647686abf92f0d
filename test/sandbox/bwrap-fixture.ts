import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { DEFAULT_CGROUP_LAYOUT } from "@reviewbot/sandbox/cgroup-limits";
import { BASE_IMAGE } from "../support/sandbox-specs.js";

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

/** A temporary directory the sandbox user may search (mkdtemp makes them 0700). */
export async function reachableTempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `reviewbot-${label}-`));
  await chmod(dir, 0o755);
  return dir;
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

/** Host processes whose command line contains `marker`, with their real, effective, saved and fs uids. */
export async function hostProcessesWith(marker: string): Promise<{ pid: number; uids: number[] }[]> {
  const found: { pid: number; uids: number[] }[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.includes(marker)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
    found.push({ pid: Number(name), uids });
  }
  return found;
}
