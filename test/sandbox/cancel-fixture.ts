import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxEngine, SandboxResult, SandboxSpec } from "@reviewbot/sandbox/sandbox-spec";
import { hostProcessesMarked } from "../support/host-processes.js";
import { shellSpec } from "../support/sandbox-specs.js";

/** A `sleep 60` run carrying a unique marker in its argv and environment, and its own job id. */
export interface MarkedSleeper {
  readonly marker: string;
  readonly jobId: string;
  readonly spec: SandboxSpec;
}

export function markedSleeper(worktree: string, signal: AbortSignal, seconds = 60): MarkedSleeper {
  const marker = `cancel-${randomUUID()}`;
  const jobId = `cancel-test-${randomUUID()}`;
  const env = { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", REVIEWBOT_MARK: marker };
  // A second process (sleep) beside the shell: both must go.
  const spec = shellSpec(worktree, `sleep ${seconds}; : ${marker}`, { env, signal, labels: { jobId, helper: "sleeper" } });
  return { marker, jobId, spec };
}

/** Polls until `check` holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

/** Resolves once a host process carries `marker` (the sandboxed command is running). */
export async function runningOnHost(marker: string): Promise<void> {
  if (!(await eventually(async () => (await hostProcessesMarked(marker)).length > 0, 15_000))) {
    throw new Error(`the sandbox marked ${marker} never showed up on the host`);
  }
}

/** When to abort a running sleeper, relative to the `run` call. */
export const ABORT_MOMENTS: readonly { readonly when: string; readonly wait: (marker: string) => Promise<void> }[] = [
  { when: "once the sleep runs", wait: runningOnHost },
  { when: "300 ms after the run began", wait: () => sleep(300) },
  { when: "at once, while the sandbox is being set up", wait: () => Promise.resolve() },
];

/** Runs a sleeper on `engine`, aborts it at `moment`, and measures how long the run took to end. */
export async function abortSleeper(
  engine: SandboxEngine,
  worktree: string,
  wait: (marker: string) => Promise<void>,
): Promise<{ sleeper: MarkedSleeper; result: SandboxResult; endedAfterAbortMs: number }> {
  const controller = new AbortController();
  const sleeper = markedSleeper(worktree, controller.signal);
  const run = engine.run(sleeper.spec);
  await wait(sleeper.marker);
  const aborted = performance.now();
  controller.abort();
  const result = await run;
  return { sleeper, result, endedAfterAbortMs: performance.now() - aborted };
}
