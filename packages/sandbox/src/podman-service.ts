import { spawn, type ChildProcess } from "node:child_process";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import type { EngineService } from "./engine-service.js";

const STOP_GRACE_MS = 250;

export interface PodmanServiceOptions {
  /** Private socket of this worker, e.g. `<state dir>/podman.sock`. */
  readonly socketPath: string;
  /** infra/podman/containers.conf: runc, cgroupfs, explicit ulimits (ARCHITECTURE §6). */
  readonly containersConf: string;
  readonly startTimeoutMs?: number;
}

/**
 * Starts and supervises this worker's own `podman system service` on a private socket. If the
 * service dies (an exit or a signal), the next `ensureRunning()` starts it again (a run's, or the
 * engine's health check's); until then runs fail as SANDBOX_UNAVAILABLE and are retried, never
 * run unsandboxed.
 */
export class PodmanService implements EngineService {
  readonly #options: PodmanServiceOptions;
  #child: ChildProcess | null = null;
  #starting: Promise<void> | null = null;

  constructor(options: PodmanServiceOptions) {
    this.#options = options;
  }

  get socketPath(): string {
    return this.#options.socketPath;
  }

  ensureRunning(): Promise<void> {
    if (this.#child !== null && !hasExited(this.#child) && this.#starting === null) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  /**
   * Null while the service runs (and answered once it started); otherwise why it does not, for a
   * health check that then calls `ensureRunning()`.
   */
  problem(): string | null {
    if (this.#starting !== null) return "podman system service is starting";
    const child = this.#child;
    if (child === null) return "podman system service is not started yet; starting it";
    if (!hasExited(child)) return null;
    return `podman system service exited (${child.signalCode ?? `code ${String(child.exitCode)}`}); starting it again`;
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (child === null || hasExited(child)) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // A graceful stop takes Podman 1.5 s or more (longer while API connections idle), and the
    // service keeps nothing of ours: every run's container is removed before close, conmon
    // supervises containers, and Podman's database is transactional. A short grace, then SIGKILL.
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(STOP_GRACE_MS).then(() => child.kill("SIGKILL"))]);
    await exited;
  }

  async #start(): Promise<void> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
      HOME: process.env.HOME ?? "/root",
      CONTAINERS_CONF: this.#options.containersConf,
    };
    if (process.env.XDG_RUNTIME_DIR !== undefined) env.XDG_RUNTIME_DIR = process.env.XDG_RUNTIME_DIR;
    const child = spawn("podman", ["system", "service", "--time=0", `unix://${this.#options.socketPath}`], {
      env,
      // conmon (Podman 4.3, cgroup v1) drops an empty `oom` marker in its working directory.
      cwd: dirname(this.#options.socketPath),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    this.#child = child;
    const docker = new Dockerode({ socketPath: this.#options.socketPath });
    const deadline = Date.now() + (this.#options.startTimeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      if (hasExited(child)) break;
      if (await docker.ping().then(() => true, () => false)) return;
      await sleep(50);
    }
    child.kill("SIGKILL");
    throw new AppError("SANDBOX_UNAVAILABLE", `podman system service did not become ready: ${stderr.trim() || "no output"}`);
  }
}

/** A child killed by a signal keeps `exitCode` null: only `signalCode` tells (Node's child_process). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
