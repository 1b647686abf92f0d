import type Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { LABELS } from "@reviewbot/sandbox/container-profile";
import { hostProcessesMarked } from "../support/host-processes.js";
import { containerEvents } from "../support/container-events.js";
import { CONTAINER_ENGINES } from "../support/container-engines.js";
import type { ContainerEngineFixture } from "../support/podman-engine.js";
import { ABORT_MOMENTS, abortSleeper, eventually, markedSleeper, runningOnHost } from "./cancel-fixture.js";

describe.each(CONTAINER_ENGINES)("container engine ($name): cancellation", ({ name, open }) => {
  let fixture: ContainerEngineFixture;
  let worktree: string;
  let engine: ContainerEngine;
  let docker: Dockerode;

  beforeAll(async () => {
    fixture = await open("cancel");
    ({ worktree, engine, docker } = fixture);
  });

  afterAll(async () => {
    await fixture.close();
  });

  /** Containers (any state) carrying the job's label. */
  async function containersOf(jobId: string): Promise<string[]> {
    const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.job}=${jobId}`] } });
    return list.map((info) => info.Id);
  }

  it.each(ABORT_MOMENTS)("kills a sleep 60 aborted $when, reports it cancelled and leaves no container", async ({ wait }) => {
    const { sleeper, result, endedAfterAbortMs } = await abortSleeper(engine, worktree, wait);
    expect(endedAfterAbortMs).toBeLessThan(3_000);
    expect(result).toMatchObject({ engine: name, sandboxed: true, cancelled: true, timedOut: false, oomKilled: false });
    // Removal runs in the background once the result is known.
    expect(await eventually(async () => (await containersOf(sleeper.jobId)).length === 0, 5_000)).toBe(true);
    expect(await hostProcessesMarked(sleeper.marker)).toEqual([]);
  });

  it("a sandbox that was running ends by SIGKILL", async () => {
    const { result } = await abortSleeper(engine, worktree, ABORT_MOMENTS[0]?.wait ?? (() => Promise.resolve()));
    expect(result).toMatchObject({ cancelled: true, signal: "SIGKILL", exitCode: null });
  });

  it("starts nothing when the signal has already aborted (negative control: a normal run creates a container)", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const aborted = markedSleeper(worktree, AbortSignal.abort());
    const result = await engine.run(aborted.spec);
    expect(result).toMatchObject({ cancelled: true, exitCode: null, signal: null, timedOut: false, stdout: Buffer.alloc(0) });
    expect(result.durationMs).toBeLessThan(50);
    expect(await containerEvents(docker, LABELS.job, aborted.jobId, since)).toEqual([]);

    const control = markedSleeper(worktree, new AbortController().signal, 0);
    const ran = await engine.run(control.spec);
    expect(ran).toMatchObject({ cancelled: false, exitCode: 0 });
    expect(await containerEvents(docker, LABELS.job, control.jobId, since)).toEqual(expect.arrayContaining(["create", "start"]));
  });

  it("an abort after the run ended changes nothing", async () => {
    const controller = new AbortController();
    const done = markedSleeper(worktree, controller.signal, 0);
    const result = await engine.run(done.spec);
    controller.abort();
    expect(result).toMatchObject({ cancelled: false, exitCode: 0, signal: null });
  });
});

describe.each(CONTAINER_ENGINES)("container engine ($name): close", ({ open }) => {
  it("kills a run in flight, then refuses new runs without starting its service again (negative control: a run before close)", async () => {
    const fixture = await open("close");
    try {
      expect(await fixture.engine.run(markedSleeper(fixture.worktree, new AbortController().signal, 0).spec)).toMatchObject({ exitCode: 0 });
      const sleeper = markedSleeper(fixture.worktree, new AbortController().signal);
      const running = fixture.engine.run(sleeper.spec);
      await runningOnHost(sleeper.marker);
      const listed = await fixture.docker.listContainers({ all: true, filters: { label: [`${LABELS.job}=${sleeper.jobId}`] } });
      expect(listed).toHaveLength(1);
      await fixture.engine.close();
      expect(await running).toMatchObject({ signal: "SIGKILL" });
      // The engine's own service is stopped with it: ask the host's processes, not its API.
      expect(await hostProcessesMarked(sleeper.marker)).toEqual([]);
      await expect(fixture.engine.run(markedSleeper(fixture.worktree, new AbortController().signal, 0).spec)).rejects.toMatchObject({
        code: "SANDBOX_UNAVAILABLE",
        message: expect.stringContaining("closed") as unknown,
      });
      expect(await hostProcessesMarked(fixture.socketPath)).toEqual([]);
    } finally {
      await fixture.close();
    }
  });
});
