import { afterEach, describe, expect, it } from "vitest";
import { hostProcessesMarked } from "../support/host-processes.js";
import { watchCommandLines } from "../support/process-watch.js";
import { ABORT_MOMENTS, abortSleeper, markedSleeper } from "./cancel-fixture.js";
import { leftoverRunCgroups, useBwrapEngine } from "./bwrap-fixture.js";

const bwrap = useBwrapEngine();

afterEach(async () => {
  expect(await leftoverRunCgroups()).toEqual([]);
});

describe("bwrap engine: cancellation", () => {
  it.each(ABORT_MOMENTS)("kills a sleep 60 aborted $when, reports it cancelled and leaves no process", async ({ wait }) => {
    const { sleeper, result, endedAfterAbortMs } = await abortSleeper(bwrap.engine, bwrap.worktree, wait);
    expect(endedAfterAbortMs).toBeLessThan(2_000);
    expect(result).toMatchObject({ engine: "bwrap", sandboxed: true, cancelled: true, timedOut: false, oomKilled: false });
    expect(await hostProcessesMarked(sleeper.marker)).toEqual([]);
  });

  it("a sandbox that was running ends by SIGKILL of bwrap", async () => {
    const { result } = await abortSleeper(bwrap.engine, bwrap.worktree, ABORT_MOMENTS[0]?.wait ?? (() => Promise.resolve()));
    expect(result).toMatchObject({ cancelled: true, signal: "SIGKILL", exitCode: null });
  });

  it("starts nothing when the signal has already aborted (negative control: a normal run is seen)", async () => {
    const watch = watchCommandLines();
    const aborted = markedSleeper(bwrap.worktree, AbortSignal.abort(), 1);
    const result = await bwrap.engine.run(aborted.spec);
    // A bwrap that was spawned always ends with an exit code or a signal; this run has neither.
    expect(result).toMatchObject({ cancelled: true, exitCode: null, signal: null, timedOut: false, stdout: Buffer.alloc(0) });
    expect(result.durationMs).toBeLessThan(50);

    const control = markedSleeper(bwrap.worktree, new AbortController().signal, 0.3);
    expect(await bwrap.engine.run(control.spec)).toMatchObject({ cancelled: false, exitCode: 0 });
    const seen = await watch.stop();
    expect(seen.filter((line) => line.includes(aborted.marker))).toEqual([]);
    expect(seen.filter((line) => line.includes(control.marker))).not.toEqual([]);
  });
});
