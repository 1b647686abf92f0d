import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import type { EngineService } from "./engine-service.js";

export interface DaemonOptions {
  /** How messages name it: `podman system service`, `dockerd`. */
  readonly name: string;
  /** The Engine API socket it serves; it is ready once `_ping` answers there. */
  readonly socketPath: string;
  readonly startTimeoutMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  readonly stopGraceMs: number;
  /** Prepares and spawns the daemon (stderr piped); called for every start and restart. */
  readonly launch: () => Promise<ChildProcess>;
}

/**
 * One engine daemon this worker starts and supervises on a private socket (the `podman system
 * service` of PodmanService, the `dockerd` of DockerService). If it dies (an exit or a signal), the
 * next `ensureRunning()` starts it again (a run's, or the engine's health check's); until then
 * runs fail as SANDBOX_UNAVAILABLE and are retried, never run unsandboxed.
 */
export class SupervisedDaemon implements EngineService {
  readonly #options: DaemonOptions;
  #child: ChildProcess | null = null;
  #starting: Promise<void> | null = null;

  constructor(options: DaemonOptions) {
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

  problem(): string | null {
    const { name } = this.#options;
    if (this.#starting !== null) return `${name} is starting`;
    const child = this.#child;
    if (child === null) return `${name} is not started yet; starting it`;
    if (!hasExited(child)) return null;
    return `${name} exited (${child.signalCode ?? `code ${String(child.exitCode)}`}); starting it again`;
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (child !== null) await this.#terminate(child);
  }

  async #start(): Promise<void> {
    const child = await this.#options.launch();
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    child.once("error", (err) => {
      stderr += err.message;
    });
    this.#child = child;
    const docker = new Dockerode({ socketPath: this.#options.socketPath });
    const deadline = Date.now() + this.#options.startTimeoutMs;
    while (Date.now() < deadline) {
      if (hasExited(child)) break;
      if (
        await docker.ping().then(
          () => true,
          () => false,
        )
      )
        return;
      await sleep(50);
    }
    await this.#terminate(child);
    throw new AppError("SANDBOX_UNAVAILABLE", `${this.#options.name} did not become ready: ${stderr.trim() || "no output"}`);
  }

  async #terminate(child: ChildProcess): Promise<void> {
    if (hasExited(child)) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), this.#options.stopGraceMs);
    await exited;
    clearTimeout(timer);
  }
}

/** A child killed by a signal keeps `exitCode` null: only `signalCode` tells (Node's child_process). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
