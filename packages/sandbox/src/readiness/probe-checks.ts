import type { SandboxLimits, SandboxResult } from "../sandbox-spec.js";

export interface ProbeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * Runs inside the sandbox with only POSIX sh and coreutils-level tools, printing `key=value`
 * lines. Cgroup files are read at the v1 paths (these hosts) and the v2 ones.
 */
export const PROBE_SCRIPT = [
  'echo "uid=$(id -u)"',
  "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t' | tr ':' '='",
  "echo \"ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ',')\"",
  'echo "memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max 2>/dev/null || echo missing)"',
  'echo "pids=$(cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max 2>/dev/null || echo missing)"',
  'echo "nofile=$(ulimit -n)"',
  'echo "fsize=$(ulimit -f)"',
  "if touch /.reviewbot-probe 2>/dev/null; then echo rootfs=writable; else echo rootfs=read-only; fi",
  "if touch /work/.reviewbot-probe 2>/dev/null; then echo worktree=writable; else echo worktree=read-only; fi",
  "if echo x > /tmp/.reviewbot-probe 2>/dev/null; then echo tmp=writable; else echo tmp=read-only; fi",
  "if unshare -U true 2>/dev/null; then echo userns=allowed; else echo userns=denied; fi",
].join("\n");

/** Judges the probe's output against the limits the engine was asked to apply. */
export function evaluateProbe(result: SandboxResult, limits: SandboxLimits): ProbeCheck[] {
  const facts = new Map(
    result.stdout
      .toString("utf8")
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string | undefined])
      .filter((pair): pair is [string, string] => pair[1] !== undefined),
  );
  const fact = (key: string): string => facts.get(key) ?? "missing";
  const atMost = (key: string, limit: number, unit = 1): ProbeCheck => {
    const value = Number(fact(key));
    const ok = Number.isFinite(value) && value * unit <= limit;
    return { name: `${key} limit`, ok, detail: ok ? fact(key) : `${fact(key)} (limit not applied; expected at most ${limit})` };
  };
  const equals = (name: string, key: string, expected: string): ProbeCheck => ({
    name,
    ok: fact(key) === expected,
    detail: fact(key) === expected ? expected : `${fact(key)} (expected ${expected})`,
  });
  const uid = Number(fact("uid"));
  return [
    { name: "probe ran", ok: result.exitCode === 0, detail: `exit ${String(result.exitCode)} ${result.stderr.toString("utf8").slice(0, 200)}` },
    { name: "non-root user", ok: Number.isInteger(uid) && uid > 0, detail: `uid ${fact("uid")}` },
    equals("capabilities", "CapEff", "0000000000000000"),
    equals("no-new-privileges", "NoNewPrivs", "1"),
    equals("seccomp", "Seccomp", "2"),
    equals("network", "ifaces", "lo,"),
    atMost("memory", limits.memoryBytes),
    atMost("pids", limits.pids),
    atMost("nofile", limits.nofile),
    // POSIX `ulimit -f` counts 512-byte blocks.
    atMost("fsize", limits.fsizeBytes, 512),
    equals("read-only root", "rootfs", "read-only"),
    equals("read-only work tree", "worktree", "read-only"),
    equals("writable /tmp", "tmp", "writable"),
    equals("no user namespaces", "userns", "denied"),
  ];
}

/**
 * What to do when the memory or pids cgroup limit is missing: rootless Podman and Docker on cgroup
 * v1 (these hosts) drop both (docs/deployment.md, "Rootless engines").
 */
export const CGROUP_LIMITS_HINT =
  'to apply memory and pids limits, run a rootful engine, or a rootless one on a cgroup v2 host whose systemd delegates the memory, pids and cpu controllers to its user (docs/deployment.md, "Rootless engines")';

/**
 * The failed checks in one sentence (null when none failed), for `doctor` and the refusal under
 * `require`; a missing memory or pids limit adds what to do about it.
 */
export function probeReason(checks: readonly ProbeCheck[]): string | null {
  const failed = checks.filter((check) => !check.ok);
  if (failed.length === 0) return null;
  const reason = failed.map((check) => `${check.name}: ${check.detail}`).join("; ");
  const cgroupLimitMissing = failed.some((check) => check.name === "memory limit" || check.name === "pids limit");
  return cgroupLimitMissing ? `${reason}; ${CGROUP_LIMITS_HINT}` : reason;
}
