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
import { openDockerEngine } from "../support/docker-engine.js";
import { startRootlessDocker } from "../support/rootless-docker.js";
import { startRootlessPodman } from "../support/rootless-podman.js";
import type { RootlessEngine } from "../support/rootless-user.js";
import { BASE_IMAGE, CONTAINERS_CONF, sandboxSpec, TEST_LIMITS } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// docs/architecture.md, 'Host facts': rootless engines on cgroup v1. Rootless Podman and rootless
// Docker on cgroup v1 silently drop memory, CPU and pids limits. The readiness probe must see that
// from inside and, under `require`, the engine is refused with a reason that says what to do.

interface RootlessCase {
  readonly name: "podman" | "docker";
  start(images: readonly string[]): Promise<RootlessEngine>;
  /** The probe checks that fail on this engine here: the limits it does not apply. */
  readonly notApplied: readonly string[];
  /** The same engine run by root, with a close that removes what it made: the negative control. */
  rootful(): Promise<{ engine: SandboxEngine; close(): Promise<void> }>;
}

const CASES: readonly RootlessCase[] = [
  {
    name: "podman",
    start: startRootlessPodman,
    // "Resource limits are not supported and ignored on cgroups V1 rootless systems": rlimits too.
    notApplied: ["memory limit", "pids limit", "nofile limit", "fsize limit"],
    async rootful() {
      const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-rootful-"));
      const engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF });
      return {
        engine,
        close: async () => {
          await engine.close();
          await rm(stateDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "docker",
    start: startRootlessDocker,
    // dockerd runs without cgroups ("Cgroup Driver: none"); runc still sets the rlimits.
    notApplied: ["memory limit", "pids limit"],
    rootful: () => openDockerEngine("rootful-control"),
  },
];

const unsandboxed: SandboxEngine = {
  name: "none",
  sandboxed: false,
  runsInstalls: false,
  run: () => Promise.reject(new Error("the unsandboxed engine must not run here")),
  health: () => Promise.resolve({ healthy: true }),
  close: () => Promise.resolve(),
};

it("the host is cgroup v1 (hybrid), the case this suite documents", () => {
  expect(existsSync("/sys/fs/cgroup/memory/memory.limit_in_bytes")).toBe(true);
});

describe.each(CASES)("rootless $name on this cgroup v1 host", (kind) => {
  let rootless: RootlessEngine | undefined;
  let engine: ContainerEngine | undefined;
  let report: ProbeReport;

  beforeAll(async () => {
    rootless = await kind.start([BASE_IMAGE]);
    engine = await createContainerEngine({ kind: kind.name, socketPath: rootless.socketPath, stateDir: rootless.stateDir, containersConf: CONTAINERS_CONF });
    report = await probeEngine(engine, { image: BASE_IMAGE, limits: TEST_LIMITS });
  }, 120_000);

  afterAll(async () => {
    await engine?.close();
    await rootless?.dispose();
  });

  it("runs containers in the user's own user namespace: root inside is that user outside", async () => {
    expect(report.checks.find((check) => check.name === "probe ran")).toMatchObject({ ok: true });
    const worktree = await reachableTempDir("rootless-worktree");
    try {
      const result = await (engine ?? unsandboxed).run(sandboxSpec(worktree, ["cat", "/proc/self/uid_map"]));
      const rootMapping = result.stdout.toString("utf8").trim().split("\n")[0]?.trim().split(/\s+/);
      expect(rootMapping).toEqual(["0", String(rootless?.uid), "1"]);
    } finally {
      await rm(worktree, { recursive: true, force: true });
    }
  });

  it("keeps every other check the probe makes: user, capabilities, seccomp, network, read-only mounts", () => {
    const held = report.checks.filter((check) => !kind.notApplied.includes(check.name));
    expect(held.filter((check) => !check.ok)).toEqual([]);
    expect(held.map((check) => check.name)).toEqual(
      expect.arrayContaining(["non-root user", "capabilities", "seccomp", "network", "read-only root", "no user namespaces"]),
    );
  });

  it("the readiness probe reports exactly the limits not applied, and what to do", () => {
    expect(report.ok).toBe(false);
    expect(report.checks.filter((check) => !check.ok).map((check) => check.name)).toEqual(kind.notApplied);
    expect(report.reason).toMatch(/memory limit: \d+ \(limit not applied; expected at most 134217728\)/);
    expect(report.reason).toMatch(/pids limit: \S+ \(limit not applied; expected at most 64\)/);
    // What to do (probe-checks.ts CGROUP_LIMITS_HINT), once, at the end.
    expect(report.reason).toMatch(
      /\(limit not applied; expected at most \d+\); to apply memory and pids limits, run a rootful engine, or a rootless one on a cgroup v2 host whose systemd delegates the memory, pids and cpu controllers to its user \(docs\/deployment\.md, "Rootless engines"\)$/,
    );
  });

  it("under require the engine is refused, with the probe's reason", () => {
    expect(() => selectEngine("require", [{ engine: engine ?? unsandboxed, probe: report }], unsandboxed)).toThrow(
      expect.objectContaining({
        code: "SANDBOX_UNAVAILABLE",
        message: expect.stringMatching(/memory limit:.*cgroup v2 host whose systemd delegates/) as unknown,
      }),
    );
  });

  it("negative control: the rootful engine with the same limits passes the same probe", async () => {
    const rootful = await kind.rootful();
    try {
      const rootfulReport = await probeEngine(rootful.engine, { image: BASE_IMAGE, limits: TEST_LIMITS });
      expect(rootfulReport.reason).toBeNull();
    } finally {
      await rootful.close();
    }
  });
});
