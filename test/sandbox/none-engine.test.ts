import { access, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import { TEST_LIMITS, shellSpec } from "../support/sandbox-specs.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { ABORT_MOMENTS, abortSleeper } from "./cancel-fixture.js";

let worktree: string;
const engine = new NoneEngine();

beforeAll(async () => {
  worktree = await reachableTempDir("none");
});

afterAll(async () => {
  await engine.close();
  await rm(worktree, { recursive: true, force: true });
});

describe("unsandboxed engine (sandbox mode off)", () => {
  it("marks every result unsandboxed and passes only the spec's environment", async () => {
    process.env.REVIEWBOT_TEST_WORKER_SECRET = "worker-only-value-1234";
    const result = await engine.run(shellSpec(worktree, "env; pwd", { env: { PATH: "/usr/bin:/bin", ONLY: "this" } }));
    delete process.env.REVIEWBOT_TEST_WORKER_SECRET;
    expect(result).toMatchObject({ engine: "none", sandboxed: false, exitCode: 0 });
    expect(result.stdout.toString()).toContain("ONLY=this");
    expect(result.stdout.toString()).not.toContain("worker-only-value-1234");
    expect(result.stdout.toString()).toContain(worktree);
  });

  it("still kills the whole process group at the deadline", async () => {
    const limits = { ...TEST_LIMITS, timeoutMs: 500 };
    const result = await engine.run(shellSpec(worktree, "(trap '' TERM; sleep 60) & trap '' TERM; sleep 60", { limits }));
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
  });

  it.each(ABORT_MOMENTS)("kills the process group of a sleep 60 aborted $when", async ({ wait }) => {
    const { sleeper, result, endedAfterAbortMs } = await abortSleeper(engine, worktree, wait);
    expect(endedAfterAbortMs).toBeLessThan(2_000);
    expect(result).toMatchObject({ engine: "none", sandboxed: false, cancelled: true, timedOut: false });
    expect(await hostProcessesMarked(sleeper.marker)).toEqual([]);
  });

  it("starts nothing when the signal has already aborted (negative control: a normal run does)", async () => {
    const script = "touch started";
    const result = await engine.run(shellSpec(worktree, script, { signal: AbortSignal.abort() }));
    expect(result).toMatchObject({ cancelled: true, exitCode: null, signal: null });
    await expect(access(join(worktree, "started"))).rejects.toThrow();
    expect(await engine.run(shellSpec(worktree, script))).toMatchObject({ cancelled: false, exitCode: 0 });
    await access(join(worktree, "started"));
  });
});
