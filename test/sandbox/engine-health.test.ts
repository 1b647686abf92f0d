import { mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import type { EngineHealth } from "@reviewbot/sandbox/sandbox-spec";
import { hostProcessesMarked } from "../support/host-processes.js";
import { openDockerEngine } from "../support/docker-engine.js";
import { openPodmanEngine, type ContainerEngineFixture, type PodmanEngineFixture } from "../support/podman-engine.js";
import { sandboxSpec } from "../support/sandbox-specs.js";
import { useBwrapEngine } from "./bwrap-fixture.js";
import { eventually } from "./cancel-fixture.js";

// Issue 11: each engine's cheap health check, against the real thing going away.
const check = (engine: { health(signal: AbortSignal): Promise<EngineHealth> }): Promise<EngineHealth> => engine.health(AbortSignal.timeout(2000));

describe("container engine health (its own Podman service)", () => {
  let podman: PodmanEngineFixture;
  beforeAll(async () => {
    podman = await openPodmanEngine("health");
  });
  afterAll(async () => {
    await podman.close();
  });

  it("is unhealthy while its service is dead, starts the service again, and runs once it answers", async () => {
    // Negative control: a run starts the service (the engine starts it lazily); then it is healthy.
    expect((await podman.engine.run(sandboxSpec(podman.worktree, ["true"]))).exitCode).toBe(0);
    expect(await check(podman.engine)).toEqual({ healthy: true });
    const socket = join(podman.stateDir, "podman.sock");
    const [service] = (await hostProcessesMarked(`unix://${socket}`)).filter((found) => found.cmdline.includes("system service"));
    expect(service).toBeDefined();
    process.kill(service?.pid ?? 0, "SIGKILL");
    await eventually(async () => (await hostProcessesMarked(`unix://${socket}`)).every((found) => found.pid !== service?.pid), 5000);

    // The process is gone from /proc a moment before Node reports its exit: until then the check
    // finds the API silent instead. Either way it is unhealthy and says why.
    const dead = await check(podman.engine);
    expect(dead.healthy ? "healthy" : dead.reason).toMatch(/^podman system service exited \(SIGKILL\); starting it again$|did not answer _ping/);
    expect(await eventually(async () => (await check(podman.engine)).healthy, 30_000)).toBe(true);
    const result = await podman.engine.run(sandboxSpec(podman.worktree, ["true"]));
    expect([result.sandboxed, result.exitCode]).toEqual([true, 0]);
  });

  it("is unhealthy, naming _ping, when its API socket does not answer; and once closed", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-health-"));
    try {
      const docker = new Dockerode({ socketPath: join(stateDir, "nothing-listens.sock") });
      const engine = new ContainerEngine({ name: "docker", docker, seccomp: "{}", stateDir });
      const health = await check(engine);
      expect(health.healthy).toBe(false);
      expect(health.healthy ? "" : health.reason).toMatch(/^the docker API did not answer _ping: .*ENOENT/);
      await engine.close();
      expect(await check(engine)).toEqual({ healthy: false, reason: "the docker engine is closed" });
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe("container engine health (its own dockerd)", () => {
  let docker: ContainerEngineFixture;
  beforeAll(async () => {
    docker = await openDockerEngine("health");
  });
  afterAll(async () => {
    await docker.close();
  });

  it("is unhealthy while its dockerd is dead, starts it again, and runs once it answers", async () => {
    expect((await docker.engine.run(sandboxSpec(docker.worktree, ["true"]))).exitCode).toBe(0);
    expect(await check(docker.engine)).toEqual({ healthy: true });
    const [daemon] = (await hostProcessesMarked(`--host=unix://${docker.socketPath}`)).filter((found) => found.cmdline.startsWith("dockerd"));
    expect(daemon).toBeDefined();
    process.kill(daemon?.pid ?? 0, "SIGKILL");
    await eventually(async () => (await hostProcessesMarked(`--host=unix://${docker.socketPath}`)).every((found) => found.pid !== daemon?.pid), 5000);

    const dead = await check(docker.engine);
    expect(dead.healthy ? "healthy" : dead.reason).toMatch(/^dockerd exited \(SIGKILL\); starting it again$|did not answer _ping/);
    expect(await eventually(async () => (await check(docker.engine)).healthy, 30_000)).toBe(true);
    const result = await docker.engine.run(sandboxSpec(docker.worktree, ["true"]));
    expect([result.sandboxed, result.exitCode]).toEqual([true, 0]);
  });
});

describe("bwrap engine health", () => {
  const bwrap = useBwrapEngine();

  it("is unhealthy while an image's extracted rootfs is gone, and healthy again once it is back", async () => {
    expect(await check(bwrap.engine)).toEqual({ healthy: true });
    const [imageId] = await readdir(join(bwrap.cacheDir, "rootfs"));
    const rootfs = join(bwrap.cacheDir, "rootfs", imageId ?? "");
    await rename(rootfs, `${rootfs}.moved`);
    try {
      const health = await check(bwrap.engine);
      expect(health.healthy ? "" : health.reason).toBe(`the rootfs of localhost/reviewbot/base:latest is gone (${rootfs})`);
    } finally {
      await rename(`${rootfs}.moved`, rootfs);
    }
    expect(await check(bwrap.engine)).toEqual({ healthy: true });
  });

  it("is unhealthy once closed", async () => {
    await bwrap.engine.close();
    expect(await check(bwrap.engine)).toEqual({ healthy: false, reason: "the bwrap engine is closed" });
  });
});
