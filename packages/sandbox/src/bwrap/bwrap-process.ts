import { spawn, type ChildProcess } from "node:child_process";
import { Writable } from "node:stream";
import { AppError } from "@reviewbot/core/errors";
import type { BwrapCommand } from "./bwrap-command.js";
import { exitStatus } from "../exit-status.js";
import { OutputBudget } from "../output-budget.js";
import type { SandboxUser } from "../uids/sandbox-user.js";

// Node fires longer timers after 1 ms (TimeoutOverflowWarning); clamp to its maximum instead.
const MAX_TIMER_MS = 2 ** 31 - 1;
// After bwrap exits, its sandbox is gone and the pipes drain at once; should anything still hold
// them open, the run must end anyway rather than wait for a close that never comes.
const STDIO_GRACE_MS = 2_000;

/** What one spawned bwrap needs besides its command line. */
export interface BwrapLaunch {
  readonly command: BwrapCommand;
  readonly user: SandboxUser;
  /** The compiled seccomp program, written to bwrap's fd 3. */
  readonly seccomp: Buffer;
  readonly stdin: string | Buffer | undefined;
  readonly timeoutMs: number;
  readonly outputBytes: number;
  /** Kills the sandbox when it aborts, like the deadline does. */
  readonly signal?: AbortSignal;
  /** Kills the run's processes beyond bwrap's own (the members of its cgroup). */
  readonly killOthers: () => void;
}

/** How the bwrap process ended, before the engine adds what only the cgroup knows. */
export interface BwrapExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly outputTruncated: boolean;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly durationMs: number;
}

/**
 * One spawned bwrap: the deadline, the output budget and the seccomp pipe. Killing it SIGKILLs
 * bwrap itself, which takes the sandbox down with it (`--die-with-parent` on the sandbox's init,
 * whose death ends its PID namespace), plus whatever `killOthers` reaches; a process-group kill
 * would not, since the sandbox runs in a session of its own.
 */
export class BwrapProcess {
  readonly done: Promise<BwrapExit>;
  readonly #child: ChildProcess;
  readonly #killOthers: () => void;

  private constructor(child: ChildProcess, launch: BwrapLaunch) {
    this.#child = child;
    this.#killOthers = launch.killOthers;
    this.done = this.#supervise(launch);
  }

  /**
   * Spawns the command as the sandbox user with an empty environment (bwrap's own environment
   * would be readable inside through /proc/1/environ; docs/architecture.md, 'Host facts': bwrap
   * started by root).
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` when the process cannot be spawned.
   */
  static start(launch: BwrapLaunch): BwrapProcess {
    const identity = launch.user.switchUser ? { uid: launch.user.uid, gid: launch.user.gid } : {};
    try {
      const child = spawn(launch.command.file, launch.command.args, {
        env: {},
        cwd: "/",
        stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
        ...identity,
      });
      return new BwrapProcess(child, launch);
    } catch (err) {
      throw new AppError("SANDBOX_UNAVAILABLE", `bwrap could not be spawned: ${(err as Error).message}`, { cause: err });
    }
  }

  /** SIGKILLs the sandbox now; the run still ends through `done`. */
  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGKILL");
    this.#killOthers();
  }

  #supervise(launch: BwrapLaunch): Promise<BwrapExit> {
    const child = this.#child;
    const started = performance.now();
    let timedOut = false;
    const budget = new OutputBudget(launch.outputBytes, () => {
      this.kill();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      budget.stdout(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      budget.stderr(chunk);
    });
    // bwrap reads the whole program before it starts the sandbox; without the pipe it must die.
    // Writes fail with EPIPE once the sandbox is gone; that is not an error of the run.
    const seccompPipe = child.stdio[3];
    const optionsPipe = child.stdio[4];
    if (seccompPipe instanceof Writable && optionsPipe instanceof Writable) {
      seccompPipe.on("error", () => undefined).end(launch.seccomp);
      optionsPipe.on("error", () => undefined).end(launch.command.options);
    } else {
      this.kill();
    }
    child.stdin?.on("error", () => undefined).end(launch.stdin);
    const timer = setTimeout(
      () => {
        timedOut = true;
        this.kill();
      },
      Math.min(launch.timeoutMs, MAX_TIMER_MS),
    );
    let cancelled = false;
    const cancel = (): void => {
      cancelled = true;
      this.kill();
    };
    if (launch.signal?.aborted === true) cancel();
    else launch.signal?.addEventListener("abort", cancel, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      launch.signal?.removeEventListener("abort", cancel);
    };

    let grace: NodeJS.Timeout | undefined;
    child.once("exit", () => {
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, STDIO_GRACE_MS);
    });

    return new Promise<BwrapExit>((resolve, reject) => {
      child.once("error", (err) => {
        if (child.pid !== undefined) return;
        settle();
        reject(new AppError("SANDBOX_UNAVAILABLE", `bwrap could not be started: ${err.message}`, { cause: err }));
      });
      child.once("close", (code, signal) => {
        settle();
        clearTimeout(grace);
        if (child.pid === undefined) return;
        // A signal here is ours (deadline, output cap, abort, close); bwrap reports a process killed
        // inside as 128 + N, which exitStatus turns into the signal's name like the containers do.
        const status = signal !== null ? { exitCode: null, signal } : exitStatus(code ?? -1);
        const { stdout, stderr } = budget.collected();
        const durationMs = Math.round(performance.now() - started);
        resolve({ ...status, timedOut, cancelled, outputTruncated: budget.truncated, stdout, stderr, durationMs });
      });
    });
  }
}
