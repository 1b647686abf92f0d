import { mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import type { EngineHealth } from "@reviewbot/sandbox/sandbox-spec";
import { untilNoContainers } from "../support/engine-idle.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { openDockerEngine } from "../support/docker-engine.js";
import { openPodmanEngine, type ContainerEngineFixture, type PodmanEngineFixture } from "../support/podman-engine.js";
import { sandboxSpec } from "../support/sandbox-specs.js";
import { useBwrapEngine } from "./bwrap-fixture.js";
import { eventually } from "./cancel-fixture.js";

// Each engine's cheap health check, against the real thing going away (/readyz used to stay 200
// after the engine died).
const check = (engine: { health(signal: AbortSignal): Promise<EngineHealth> }): Promise<EngineHealth> => engine.health(AbortSignal.timeout(2000));

/**
 * The engine's own daemon killed with SIGKILL: healthy before (negative control: a run starts the
 * lazily started daemon), unhealthy naming why after, started again, and a run works once it answers.
 */
async function killAndRecover(fixture: ContainerEngineFixture, marker: string, isDaemon: (cmdline: string) => boolean, name: string): Promise<void> {
  expect((await fixture.engine.run(sandboxSpec(fixture.worktree, ["true"]))).exitCode).toBe(0);
  // Killed idle: a service killed mid-removal corrupts Podman's store for the whole host.
  await untilNoContainers(fixture.docker, 10_000);
  expect(await check(fixture.engine)).toEqual({ healthy: true });
  const [daemon] = (await hostProcessesMarked(marker)).filter((found) => isDaemon(found.cmdline));
  expect(daemon).toBeDefined();
  process.kill(daemon?.pid ?? 0, "SIGKILL");
  await eventually(async () => (await hostProcessesMarked(marker)).every((found) => found.pid !== daemon?.pid), 5000);
  // The process is gone from /proc a moment before Node reports its exit: until then the check
  // finds the API silent instead. Either way it is unhealthy and says why.
  const dead = await check(fixture.engine);
  expect(dead.healthy ? "healthy" : dead.reason).toMatch(new RegExp(`^${name} exited \\(SIGKILL\\); starting it again$|did not answer _ping`));
  expect(await eventually(async () => (await check(fixture.engine)).healthy, 30_000)).toBe(true);
  const result = await fixture.engine.run(sandboxSpec(fixture.worktree, ["true"]));
  expect([result.sandboxed, result.exitCode]).toEqual([true, 0]);
}

describe("container engine health (its own Podman service)", () => {
  let podman: PodmanEngineFixture;
  beforeAll(async () => {
    podman = await openPodmanEngine("health");
  });
  afterAll(async () => {
    await podman.close();
  });

  it("is unhealthy while its service is dead, starts the service again, and runs once it answers", async () => {
    await killAndRecover(podman, `unix://${join(podman.stateDir, "podman.sock")}`, (cmdline) => cmdline.includes("system service"), "podman system service");
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
    await killAndRecover(docker, `--host=unix://${docker.socketPath}`, (cmdline) => cmdline.startsWith("dockerd"), "dockerd");
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
