import { describe, expect, it } from "vitest";
import { cgroupLimitWrites, oomKillCount, runCgroupDir } from "./cgroup-limits.js";

const layout = { root: "/sys/fs/cgroup", parent: "reviewbot" };

describe("cgroupLimitWrites", () => {
  it("limits memory without extra swap, pids and CPU, memory first", () => {
    const writes = cgroupLimitWrites({ memoryBytes: 134217728, pids: 64, cpus: 1.5 });
    expect(writes.map((write) => `${write.controller}/${write.file}=${write.value}${write.optional ? "?" : ""}`)).toEqual([
      "memory/memory.limit_in_bytes=134217728",
      "memory/memory.memsw.limit_in_bytes=134217728?",
      "pids/pids.max=64",
      "cpu/cpu.cfs_period_us=100000",
      "cpu/cpu.cfs_quota_us=150000",
    ]);
  });

  it.each([
    [1, "100000"],
    [0.25, "25000"],
    [2, "200000"],
    [0.001, "1000"],
  ])("turns %d CPUs into a quota of %s µs", (cpus, quota) => {
    const write = cgroupLimitWrites({ memoryBytes: 1, pids: 1, cpus }).find((w) => w.file === "cpu.cfs_quota_us");
    expect(write?.value).toBe(quota);
  });
});

describe("runCgroupDir", () => {
  it("places a run under the parent of each hierarchy", () => {
    expect(runCgroupDir(layout, "pids", "0b6f3c1e-2a4d-4f7e-9c1a-1234567890ab")).toBe("/sys/fs/cgroup/pids/reviewbot/0b6f3c1e-2a4d-4f7e-9c1a-1234567890ab");
  });

  it.each([
    ["a run id with ..", layout, ".."],
    ["a run id with a slash", layout, "a/b"],
    ["an empty run id", layout, ""],
    ["a parent that climbs", { ...layout, parent: "../x" }, "r1"],
  ])("refuses %s", (_label, badLayout, runId) => {
    expect(() => runCgroupDir(badLayout, "memory", runId)).toThrow(/invalid cgroup path component/);
  });
});

describe("oomKillCount", () => {
  it.each([
    ["oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", 2],
    ["oom_kill_disable 0\nunder_oom 0\noom_kill 0\n", 0],
    ["oom_kill_disable 0\nunder_oom 0\n", 0],
  ])("reads %j as %d", (text, count) => {
    expect(oomKillCount(text)).toBe(count);
  });
});
