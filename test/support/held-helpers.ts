import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { hostProcessesMarked, type HostProcess } from "./host-processes.js";
import { shellSpec } from "./sandbox-specs.js";

/** A helper kept running for a few seconds, as the host sees it. */
export interface HeldHelper {
  readonly processes: HostProcess[];
  /** The run, settling once the helper is done. */
  readonly done: Promise<unknown>;
}

/** Starts a helper that holds `marker` for three seconds, and waits until the host sees its processes. */
export async function holdHelper(label: string, engine: SandboxEngine, worktree: string, marker: string): Promise<HeldHelper> {
  const done = engine.run(shellSpec(worktree, `sleep 3; : ${marker}`));
  for (let tries = 0; tries < 150; tries += 1) {
    const processes = (await hostProcessesMarked(marker)).filter((process) => process.cmdline.startsWith("sh -c sleep"));
    if (processes.length > 0) return { processes, done };
    await sleep(20);
  }
  await done;
  throw new Error(`${label}: the helper marked ${marker} never showed on the host`);
}

/** The host uids a helper's processes run as (real, effective, saved and filesystem alike). */
export const hostUids = (helper: HeldHelper): number[] => [...new Set(helper.processes.flatMap((process) => process.uids))];

/**
 * Holds one helper on each engine at once and returns their host uids, checked: each run is one
 * host user (real, effective, saved and filesystem uid alike), not the other's, neither root nor
 * the worker's.
 */
export async function uidsOfTwoInFlight(label: string, engines: readonly [SandboxEngine, SandboxEngine], worktree: string): Promise<[number, number]> {
  const first = await holdHelper(label, engines[0], worktree, `first-${randomUUID()}`);
  const second = await holdHelper(label, engines[1], worktree, `second-${randomUUID()}`);
  const [a, b] = [hostUids(first), hostUids(second)];
  await Promise.all([first.done, second.done]);
  expect(a).toHaveLength(1);
  expect(b).toHaveLength(1);
  const [one = 0, two = 0] = [a[0], b[0]];
  expect(one).not.toBe(two);
  for (const uid of [one, two]) {
    expect(uid).not.toBe(0);
    expect(uid).not.toBe(process.getuid?.());
  }
  return [one, two];
}
