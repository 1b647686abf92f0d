import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { probeEngine, type ProbeReport } from "@reviewbot/sandbox/readiness-probe";
import { selectEngine } from "@reviewbot/sandbox/select-engine";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { startRootlessPodman, type RootlessPodman } from "../support/rootless-podman.js";
import { BASE_IMAGE, CONTAINERS_CONF, TEST_LIMITS } from "../support/sandbox-specs.js";

// ARCHITECTURE §6: rootless Podman on cgroup v1 silently ignores memory, CPU and pids limits.
// The readiness probe must see that from inside and, under `require`, the engine is refused.
let rootless: RootlessPodman;
let engine: ContainerEngine;
let report: ProbeReport;

beforeAll(async () => {
  rootless = await startRootlessPodman([BASE_IMAGE]);
  engine = await createContainerEngine({ kind: "podman", socketPath: rootless.socketPath, stateDir: rootless.stateDir, containersConf: CONTAINERS_CONF });
  report = await probeEngine(engine, { image: BASE_IMAGE, limits: TEST_LIMITS });
}, 120_000);

afterAll(async () => {
  await engine.close();
  await rootless.dispose();
});

const unsandboxed: SandboxEngine = {
  name: "none",
  run: () => Promise.reject(new Error("the unsandboxed engine must not run here")),
  health: () => Promise.resolve({ healthy: true }),
  close: () => Promise.resolve(),
};

describe("rootless Podman on this cgroup v1 host", () => {
  it("the host is cgroup v1 (hybrid), the case this suite documents", () => {
    expect(existsSync("/sys/fs/cgroup/memory/memory.limit_in_bytes")).toBe(true);
  });

  it("keeps the isolation the probe checks: user, capabilities, seccomp, network, read-only mounts", () => {
    const isolation = report.checks.filter((check) => !/ limit$/.test(check.name));
    expect(isolation.filter((check) => !check.ok)).toEqual([]);
    expect(isolation.map((check) => check.name)).toContain("seccomp");
  });

  it("the readiness probe reports that the memory and pids limits are not applied", () => {
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/memory limit: \d+ \(limit not applied; expected at most 134217728\)/);
    expect(report.reason).toMatch(/pids limit: \S+ \(limit not applied; expected at most 64\)/);
  });

  it("under require the engine is refused, with the probe's reason", () => {
    expect(() => selectEngine("require", [{ engine, probe: report }], unsandboxed)).toThrow(
      expect.objectContaining({ code: "SANDBOX_UNAVAILABLE", message: expect.stringContaining("memory limit:") as unknown }),
    );
  });

  it("negative control: rootful Podman with the same limits passes the same probe", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-rootful-"));
    const rootful = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF });
    try {
      const rootfulReport = await probeEngine(rootful, { image: BASE_IMAGE, limits: TEST_LIMITS });
      expect(rootfulReport.reason).toBeNull();
    } finally {
      await rootful.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
