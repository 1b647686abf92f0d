import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluateProbe, PROBE_SCRIPT, probeReason, type ProbeCheck } from "./probe-checks.js";
import type { EngineName } from "@reviewbot/core/engine-names";
import type { SandboxEngine, SandboxLimits } from "../sandbox-spec.js";

export interface ProbeReport {
  readonly engine: EngineName;
  readonly ok: boolean;
  readonly checks: readonly ProbeCheck[];
  /** The failed checks in one sentence, for `doctor` and the refusal under `require`. */
  readonly reason: string | null;
  readonly durationMs: number;
}

export interface ProbeOptions {
  /** The allowlisted image the probe runs in (the operator's default, `base`). */
  readonly image: string;
  /** The limits every helper gets at most; the probe checks they hold from inside. */
  readonly limits: SandboxLimits;
  /**
   * Where the probe's work tree is made (default: the OS temp dir). A worker in a container that
   * drives the host's engine through a socket must use a directory the engine sees at the same
   * path, as it does for the helpers' work trees: its own /tmp is not the host's.
   */
  readonly workDir?: string;
}

/**
 * Starts one sandbox exactly as a helper would and verifies from inside that the isolation is
 * real: non-root uid, no capabilities, no-new-privileges, seccomp filtering, only the loopback
 * interface, memory and pids limits in force, rlimits, read-only root and work tree, a writable
 * /tmp, no new user namespaces. A binary on PATH proves nothing; only this does.
 */
export async function probeEngine(engine: SandboxEngine, options: ProbeOptions): Promise<ProbeReport> {
  const startedAt = performance.now();
  const worktree = await mkdtemp(join(options.workDir ?? tmpdir(), "reviewbot-probe-"));
  // Whichever uid the sandbox runs as (its own host uid, or 10001) must be able to enter it.
  await chmod(worktree, 0o755);
  try {
    const result = await engine.run({
      argv: ["sh", "-c", PROBE_SCRIPT],
      image: options.image,
      worktree,
      cwd: ".",
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
      limits: { ...options.limits, timeoutMs: Math.min(options.limits.timeoutMs, 30_000) },
      labels: { jobId: "readiness-probe", helper: "probe" },
    });
    const checks = evaluateProbe(result, options.limits);
    const reason = probeReason(checks);
    return {
      engine: engine.name,
      ok: reason === null,
      checks,
      reason,
      durationMs: Math.round(performance.now() - startedAt),
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { engine: engine.name, ok: false, checks: [], reason, durationMs: Math.round(performance.now() - startedAt) };
  } finally {
    await rm(worktree, { recursive: true, force: true });
  }
}
