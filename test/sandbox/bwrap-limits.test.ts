import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { withEventLoopLag } from "@reviewbot/core/testing/event-loop-lag";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { BASE_IMAGE, shellSpec, TEST_LIMITS } from "../support/sandbox-specs.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { leftoverRunCgroups, useBwrapEngine } from "./bwrap-fixture.js";

const bwrap = useBwrapEngine();

afterEach(async () => {
  expect(await leftoverRunCgroups()).toEqual([]);
});

describe("bwrap engine: resource limits", () => {
  it("OOM-kills a process that grows past memoryBytes", async () => {
    const limits = { ...TEST_LIMITS, memoryBytes: 64 * 1024 * 1024 };
    // /dev/zero has no newline, so tail holds everything it reads.
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "head -c 600M /dev/zero | tail | wc -c", { limits }));
    expect(result.oomKilled).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it("stops a fork bomb at the pids limit, stays responsive and runs the next job normally", async () => {
    const limits = { ...TEST_LIMITS, timeoutMs: 3000 };
    const bomb = "bomb() { bomb | bomb & }; bomb; sleep 100";
    // The worst delay of a 10 ms interval timer while it runs: the worker's responsiveness.
    const { result, maxLagMs } = await withEventLoopLag(() => bwrap.engine.run(shellSpec(bwrap.worktree, bomb, { limits })), 10);
    expect(result.stderr.toString()).toMatch(/fork/i);
    expect(result.durationMs).toBeLessThan(6000);
    expect(maxLagMs).toBeLessThan(500);
    const next = await bwrap.engine.run(shellSpec(bwrap.worktree, "echo fine"));
    expect(next).toMatchObject({ exitCode: 0, stdout: Buffer.from("fine\n") });
  });
});

describe("bwrap engine: CPU", () => {
  it("throttles a CPU spin to its share of cpus", async () => {
    const limits = { ...TEST_LIMITS, cpus: 0.2, timeoutMs: 1500 };
    const run = bwrap.engine.run(shellSpec(bwrap.worktree, "while :; do :; done", { limits }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const [dir] = (await leftoverRunCgroups()).filter((path) => path.includes("/cpu/"));
    const quota = await readFile(`${dir ?? "missing"}/cpu.cfs_quota_us`, "utf8");
    const throttled = /^nr_throttled (\d+)$/m.exec(await readFile(`${dir ?? "missing"}/cpu.stat`, "utf8"))?.[1];
    await run;
    expect(quota.trim()).toBe("20000");
    expect(Number(throttled)).toBeGreaterThan(0);
  });
});

describe("bwrap engine: deadline", () => {
  it("SIGKILLs a process that ignores SIGTERM at the deadline", async () => {
    const limits = { ...TEST_LIMITS, timeoutMs: 1000 };
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "trap '' TERM; sleep 100", { limits }));
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL", exitCode: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(1000);
    expect(result.durationMs).toBeLessThan(2500);
  });

  it.each([
    ["the helper exits", "exit 0", 10_000, false],
    ["the deadline passes", "sleep 100", 1000, true],
  ])("kills a double-forked daemon that ignores SIGTERM when %s", async (_when, tail, timeoutMs, timedOut) => {
    const marker = `daemon-${randomUUID()}`;
    // The subshell exits at once, so the daemon is orphaned; it keeps stdout open and says its pid.
    const daemon = `( sh -c 'trap "" TERM HUP; echo "daemon $$"; while :; do sleep 1; done; : ${marker}' & ); sleep 0.3; ${tail}`;
    const limits = { ...TEST_LIMITS, timeoutMs };
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, daemon, { limits }));
    expect(result.stdout.toString()).toMatch(/^daemon \d+\n$/);
    expect(result.timedOut).toBe(timedOut);
    expect(result.durationMs).toBeLessThan(timeoutMs + 1500);
    expect(await hostProcessesMarked(marker)).toEqual([]);
  });
});

describe("bwrap engine without cgroups (a non-root worker)", () => {
  // No cgroup to sweep: bwrap's death alone (--die-with-parent on the namespace's init, whose
  // exit ends the PID namespace) must take the whole tree down.
  it("still kills the tree, a double-forked daemon included, at the deadline", async () => {
    const engine = await BwrapEngine.create({
      images: [BASE_IMAGE],
      cacheDir: bwrap.cacheDir,
      cgroupLayout: { root: "/nonexistent-cgroup-root", parent: "reviewbot" },
    });
    try {
      expect(engine.cgroupLimits).toBe(false);
      const marker = `daemon-${randomUUID()}`;
      const script = `( sh -c 'trap "" TERM HUP; while :; do sleep 1; done; : ${marker}' & ); trap '' TERM; sleep 100`;
      const run = engine.run(shellSpec(bwrap.worktree, script, { limits: { ...TEST_LIMITS, timeoutMs: 1000 } }));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const daemonWhileRunning = await hostProcessesMarked(marker);
      const result = await run;
      expect(daemonWhileRunning.length).toBeGreaterThan(0);
      expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
      expect(await hostProcessesMarked(marker)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});

describe("bwrap engine: output cap", () => {
  it("kills a flood once outputBytes are collected and keeps exactly that many bytes", async () => {
    const limits = { ...TEST_LIMITS, outputBytes: 64 * 1024 };
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "yes", { limits }));
    expect(result).toMatchObject({ outputTruncated: true, timedOut: false, signal: "SIGKILL" });
    expect(result.stdout.length + result.stderr.length).toBe(64 * 1024);
    expect(result.stdout.length).toBe(64 * 1024);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it("cuts a gigabyte on one line without holding it", async () => {
    const limits = { ...TEST_LIMITS, outputBytes: 1024 * 1024 };
    const before = process.memoryUsage().rss;
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "head -c 1000000000 /dev/zero | tr '\\0' x", { limits }));
    expect(result.outputTruncated).toBe(true);
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});
