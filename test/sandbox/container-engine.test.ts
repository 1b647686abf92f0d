import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { LABELS } from "@reviewbot/sandbox/container-profile";
import { reapExpiredContainers } from "@reviewbot/sandbox/container-janitor";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { probeEngine } from "@reviewbot/sandbox/readiness-probe";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { BASE_IMAGE, CONTAINERS_CONF, TEST_LIMITS, sandboxSpec, shellSpec } from "../support/sandbox-specs.js";
import { CONTAINER_ENGINES } from "../support/container-engines.js";
import type { ContainerEngineFixture } from "../support/podman-engine.js";

// Other suites may share the host's container storage: this file's runs carry their own job id.
const JOB_ID = `container-engine-${process.pid}-${Date.now()}`;
const labels = { jobId: JOB_ID, helper: "test-helper" };

describe.each(CONTAINER_ENGINES)("container engine ($name, rootful, through its API)", ({ name, open }) => {
  let fixture: ContainerEngineFixture;
  let stateDir: string;
  let worktree: string;
  let engine: ContainerEngine;
  let docker: Dockerode;

  beforeAll(async () => {
    fixture = await open("engine");
    ({ stateDir, worktree, engine, docker } = fixture);
    await writeFile(join(worktree, "hello.txt"), "hello from the work tree\n");
  });

  afterAll(async () => {
    await fixture.close();
  });

  async function ourContainers(): Promise<string[]> {
    const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`, `${LABELS.job}=${JOB_ID}`] } });
    return list.map((info) => info.Id);
  }

  it("passes its readiness probe", async () => {
    const report = await probeEngine(engine, { image: BASE_IMAGE, limits: TEST_LIMITS });
    expect(report.reason).toBeNull();
    expect(report.ok).toBe(true);
  });

  it("negative control: the probe refuses a profile without seccomp", async () => {
    const weakened = new ContainerEngine({ name, docker, seccomp: "unconfined", stateDir });
    const report = await probeEngine(weakened, { image: BASE_IMAGE, limits: TEST_LIMITS });
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/^seccomp: 0/);
  });

  it("negative control: the probe refuses an engine whose memory and pids limits are dropped", async () => {
    const dropsLimits: SandboxEngine = {
      name,
      sandboxed: true,
      runsInstalls: false,
      close: () => Promise.resolve(),
      health: () => Promise.resolve({ healthy: true }),
      run: (spec) => engine.run({ ...spec, limits: { ...spec.limits, memoryBytes: 0, pids: 1_000_000 } }),
    };
    const report = await probeEngine(dropsLimits, { image: BASE_IMAGE, limits: TEST_LIMITS });
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/memory limit: .*limit not applied/);
    expect(report.reason).toMatch(/pids limit: .*limit not applied/);
  });

  it("runs argv, passes stdin, keeps stdout and stderr apart and reports the exit code", async () => {
    const result = await engine.run(shellSpec(worktree, "cat; cat /work/hello.txt; echo oops >&2; exit 3", { stdin: "from stdin\n" }));
    expect(result).toMatchObject({ engine: name, sandboxed: true, exitCode: 3, signal: null, timedOut: false, oomKilled: false });
    expect(result.stdout.toString()).toBe("from stdin\nhello from the work tree\n");
    expect(result.stderr.toString()).toBe("oops\n");
  });

  it("returns invalid UTF-8 and NUL bytes exactly", async () => {
    const result = await engine.run(sandboxSpec(worktree, ["printf", "a\\000b\\377\\376c"]));
    expect([...result.stdout]).toEqual([0x61, 0, 0x62, 0xff, 0xfe, 0x63]);
  });

  it("kills a process that ignores SIGTERM at the deadline", async () => {
    const limits = { ...TEST_LIMITS, timeoutMs: 1000 };
    const result = await engine.run(shellSpec(worktree, "trap '' TERM; sleep 100", { limits }));
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL", exitCode: null });
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it("cuts an output flood at the budget and kills the helper", async () => {
    const result = await engine.run(sandboxSpec(worktree, ["yes", "flood"]));
    expect(result.outputTruncated).toBe(true);
    expect(result.stdout.length).toBe(TEST_LIMITS.outputBytes);
    expect(result.signal).toBe("SIGKILL");
  });

  it("reports a memory hog as OOM-killed", async () => {
    const script = "x=$(head -c 400000000 /dev/zero | tr '\\0' a); echo ${#x}";
    const result = await engine.run(shellSpec(worktree, script));
    expect(result).toMatchObject({ oomKilled: true, timedOut: false, outputTruncated: false });
  });

  it("reports a missing image by name", async () => {
    await expect(engine.run(sandboxSpec(worktree, ["true"], { image: "localhost/reviewbot/absent:latest" }))).rejects.toMatchObject({
      code: "IMAGE_MISSING",
      message: expect.stringContaining("localhost/reviewbot/absent:latest") as unknown,
    });
  });

  it("the janitor removes a labelled container past its deadline and keeps a live one", async () => {
    const create = (deadline: number): Promise<Dockerode.Container> =>
      docker.createContainer({ Image: BASE_IMAGE, Cmd: ["true"], Labels: { [LABELS.managed]: "true", [LABELS.deadline]: String(deadline) } });
    const stale = await create(Date.now() - 3_600_000);
    const live = await create(Date.now() + 3_600_000);
    const removed = await reapExpiredContainers(docker);
    expect(removed).toContain(stale.id);
    expect(removed).not.toContain(live.id);
    await live.remove({ force: true });
  });

  it("an engine created with a janitor reaps a crashed run's container at start-up", async () => {
    const stale = await docker.createContainer({
      Image: BASE_IMAGE,
      Cmd: ["true"],
      Labels: { [LABELS.managed]: "true", [LABELS.job]: JOB_ID, [LABELS.deadline]: String(Date.now() - 3_600_000) },
    });
    const withJanitor = await createContainerEngine({
      kind: name,
      socketPath: fixture.socketPath,
      stateDir,
      containersConf: CONTAINERS_CONF,
      janitorIntervalMs: 60_000,
    });
    await withJanitor.close();
    expect(await ourContainers()).not.toContain(stale.id);
  });

  it("leaves no container behind after close", async () => {
    const other = await createContainerEngine({ kind: name, socketPath: fixture.socketPath, stateDir, containersConf: CONTAINERS_CONF });
    await other.run(sandboxSpec(worktree, ["true"], { labels }));
    await other.close();
    expect(await ourContainers()).toEqual([]);
  });
});
