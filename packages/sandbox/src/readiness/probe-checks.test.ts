import { describe, expect, it } from "vitest";
import { CGROUP_LIMITS_HINT, evaluateProbe, probeReason } from "./probe-checks.js";
import type { SandboxLimits, SandboxResult } from "../sandbox-spec.js";
import { sandboxResult } from "../testing/sandbox-result.js";

const limits: SandboxLimits = {
  timeoutMs: 10_000,
  memoryBytes: 268_435_456,
  cpus: 1,
  pids: 64,
  outputBytes: 1_048_576,
  tmpfsBytes: 16_777_216,
  nofile: 1024,
  fsizeBytes: 67_108_864,
};

const GOOD: Record<string, string> = {
  uid: "10001",
  CapEff: "0000000000000000",
  NoNewPrivs: "1",
  Seccomp: "2",
  ifaces: "lo,",
  memory: "268435456",
  pids: "64",
  nofile: "1024",
  fsize: "131072",
  rootfs: "read-only",
  worktree: "read-only",
  tmp: "writable",
  userns: "denied",
};

function result(facts: Record<string, string>, exitCode = 0): SandboxResult {
  const stdout = Buffer.from(
    Object.entries(facts)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  return sandboxResult({ engine: "podman", exitCode, stdout });
}

describe("evaluateProbe", () => {
  it("passes a properly isolated sandbox", () => {
    expect(evaluateProbe(result(GOOD), limits).filter((check) => !check.ok)).toEqual([]);
  });

  it.each([
    ["uid", "0", "non-root user"],
    ["CapEff", "00000000a80425fb", "capabilities"],
    ["NoNewPrivs", "0", "no-new-privileges"],
    ["Seccomp", "0", "seccomp"],
    ["ifaces", "lo,eth0,", "network"],
    ["memory", "9223372036854771712", "memory limit"],
    ["memory", "missing", "memory limit"],
    ["pids", "max", "pids limit"],
    ["nofile", "1048576", "nofile limit"],
    ["fsize", "unlimited", "fsize limit"],
    ["rootfs", "writable", "read-only root"],
    ["worktree", "writable", "read-only work tree"],
    ["tmp", "read-only", "writable /tmp"],
    ["userns", "allowed", "no user namespaces"],
  ])("fails when %s is %s", (key, value, check) => {
    const failed = evaluateProbe(result({ ...GOOD, [key]: value }), limits).filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).toEqual([check]);
  });

  it("fails when the probe itself did not run", () => {
    const failed = evaluateProbe(result({}, 127), limits).filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).toContain("probe ran");
  });
});

describe("probeReason", () => {
  it("is null when every check passed", () => {
    expect(probeReason(evaluateProbe(result(GOOD), limits))).toBeNull();
  });

  it("names each failed check with its detail, and no hint when no cgroup limit is missing", () => {
    const checks = evaluateProbe(result({ ...GOOD, Seccomp: "0", nofile: "1048576" }), limits);
    expect(probeReason(checks)).toBe("seccomp: 0 (expected 2); nofile limit: 1048576 (limit not applied; expected at most 1024)");
  });

  it.each([
    ["memory", "9223372036854771712", "memory limit: 9223372036854771712 (limit not applied; expected at most 268435456)"],
    ["pids", "missing", "pids limit: missing (limit not applied; expected at most 64)"],
  ])("says what to do when the %s limit is missing (rootless engines on cgroup v1)", (key, value, failure) => {
    const reason = probeReason(evaluateProbe(result({ ...GOOD, [key]: value }), limits));
    expect(reason).toBe(`${failure}; ${CGROUP_LIMITS_HINT}`);
    expect(reason).toMatch(/cgroup v2 host whose systemd delegates the memory, pids and cpu controllers/);
  });
});
