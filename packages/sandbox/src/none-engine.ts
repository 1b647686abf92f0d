import { spawn } from "node:child_process";
import { join } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import { cancelledResult, isAborted } from "./cancelled-result.js";
import { mountsRefusal } from "./refuse-mounts.js";
import { OutputBudget } from "./output-budget.js";
import type { EngineHealth, SandboxEngine, SandboxResult, SandboxSpec } from "./sandbox-spec.js";

/**
 * The explicit escape hatch of sandbox mode `off` (or `auto` with no working engine): the helper
 * runs directly on the worker, in the work tree, with the allowlisted environment, the deadline
 * and the output budget (and its signal), and nothing else. Every result says `sandboxed: false`; the caller has
 * already logged the loud warning that selected it.
 */
export class NoneEngine implements SandboxEngine {
  readonly name = "none";
  readonly sandboxed = false;
  readonly runsInstalls = false;
  readonly #live = new Set<() => void>();

  run(spec: SandboxSpec): Promise<SandboxResult> {
    const [file, ...args] = spec.argv;
    if (file === undefined) return Promise.reject(new AppError("POLICY_DENIED", "argv: empty command"));
    if (isAborted(spec.signal)) return Promise.resolve(cancelledResult(this.name, false));
    const refusal = mountsRefusal(spec, this.name);
    if (refusal !== undefined) return Promise.reject(refusal);
    const startedAt = performance.now();
    const child = spawn(file, args, {
      cwd: join(spec.worktree, spec.cwd),
      env: { ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = (): void => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    };
    const kill = (): void => {
      try {
        killGroup();
      } catch {
        // Already gone.
      }
    };
    let timedOut = false;
    const budget = new OutputBudget(spec.limits.outputBytes, kill);
    child.stdout.on("data", (chunk: Buffer) => {
      budget.stdout(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      budget.stderr(chunk);
    });
    child.stdin.on("error", () => undefined).end(spec.stdin);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.limits.timeoutMs);
    let cancelled = false;
    const cancel = (): void => {
      cancelled = true;
      kill();
    };
    spec.signal?.addEventListener("abort", cancel, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", cancel);
      this.#live.delete(kill);
    };
    this.#live.add(kill);
    return new Promise<SandboxResult>((resolve, reject) => {
      child.once("error", (err) => {
        settle();
        reject(new AppError("SANDBOX_UNAVAILABLE", `could not start ${file}: ${err.message}`, { cause: err }));
      });
      child.once("close", (code, signal) => {
        settle();
        // The helper's own children may outlive it; the group goes with it.
        kill();
        const { stdout, stderr } = budget.collected();
        resolve({
          engine: "none",
          sandboxed: false,
          exitCode: code,
          signal,
          timedOut,
          cancelled,
          oomKilled: false,
          outputTruncated: budget.truncated,
          stdout,
          stderr,
          durationMs: Math.round(performance.now() - startedAt),
        });
      });
    });
  }

  /** Nothing to lose: a helper runs as a plain child process of the worker. */
  health(): Promise<EngineHealth> {
    return Promise.resolve({ healthy: true });
  }

  close(): Promise<void> {
    for (const kill of this.#live) kill();
    return Promise.resolve();
  }
}
