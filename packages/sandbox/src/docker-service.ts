import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import type { EngineService } from "./engine-service.js";

/** dockerd stops its containerd and closes its databases on SIGTERM; without containers, in well under a second. */
const STOP_GRACE_MS = 10_000;

export interface DockerServiceOptions {
  /** The daemon's own directory: `docker.sock`, `docker.pid`, `daemon.json` and `exec/` go here. */
  readonly dir: string;
  /** Images, containers and layers (`--data-root`); setup loads the helper images into it. */
  readonly dataRoot: string;
  readonly startTimeoutMs?: number;
}

/**
 * Starts and supervises this worker's own `dockerd` (as root) on a private socket, with its own
 * data root, exec root, pid file and an empty config file (never /etc/docker/daemon.json), and no
 * networking: no bridge, no iptables rules, IP forwarding left as the host has it. Helpers have
 * `--network none`, so nothing more is needed. Like PodmanService, a daemon that died is started
 * again by the next `ensureRunning()`.
 */
export class DockerService implements EngineService {
  readonly #options: DockerServiceOptions;
  #child: ChildProcess | null = null;
  #starting: Promise<void> | null = null;

  constructor(options: DockerServiceOptions) {
    this.#options = options;
  }

  get socketPath(): string {
    return join(this.#options.dir, "docker.sock");
  }

  ensureRunning(): Promise<void> {
    if (this.#child !== null && !hasExited(this.#child) && this.#starting === null) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  problem(): string | null {
    if (this.#starting !== null) return "dockerd is starting";
    const child = this.#child;
    if (child === null) return "dockerd is not started yet; starting it";
    if (!hasExited(child)) return null;
    return `dockerd exited (${child.signalCode ?? `code ${String(child.exitCode)}`}); starting it again`;
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (child === null || hasExited(child)) return;
    await terminate(child);
  }

  async #start(): Promise<void> {
    const { dir, dataRoot } = this.#options;
    const pidFile = join(dir, "docker.pid");
    await mkdir(join(dir, "exec"), { recursive: true, mode: 0o700 });
    await writeFile(join(dir, "daemon.json"), "{}\n", { mode: 0o600 });
    await stopOrphans(dir, pidFile);
    // Its own containerd namespace too, should dockerd find a system containerd to use.
    const namespace = `reviewbot-${createHash("sha256").update(dataRoot).digest("hex").slice(0, 12)}`;
    const args = [
      `--config-file=${join(dir, "daemon.json")}`,
      `--data-root=${dataRoot}`,
      `--exec-root=${join(dir, "exec")}`,
      `--host=unix://${this.socketPath}`,
      `--pidfile=${pidFile}`,
      `--containerd-namespace=${namespace}`,
      `--containerd-plugins-namespace=${namespace}-plugins`,
      "--bridge=none",
      "--iptables=false",
      "--ip-forward=false",
      "--ip-masq=false",
      "--log-level=warn",
    ];
    const env = { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", HOME: process.env.HOME ?? "/root" };
    const child = spawn("dockerd", args, { env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    child.once("error", (err) => {
      stderr += err.message;
    });
    this.#child = child;
    const docker = new Dockerode({ socketPath: this.socketPath });
    const deadline = Date.now() + (this.#options.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      if (hasExited(child)) break;
      if (await docker.ping().then(() => true, () => false)) return;
      await sleep(50);
    }
    await terminate(child);
    throw new AppError("SANDBOX_UNAVAILABLE", `dockerd did not become ready: ${stderr.trim() || "no output"}`);
  }
}

/**
 * Our dockerd left running by a worker that was killed holds the pid file: stop it first. Then
 * both pid files go: a dead daemon's containerd (killed with it) can linger as a zombie where
 * nothing reaps orphans, and dockerd would wait ~15 s for a "containerd still running" that never
 * answers (measured here after a SIGKILL of dockerd).
 */
async function stopOrphans(dir: string, pidFile: string): Promise<void> {
  const containerdPidFile = join(dir, "exec", "containerd", "containerd.pid");
  await stopIfOurs(pidFile, `--pidfile=${pidFile}`, "SIGTERM");
  await stopIfOurs(containerdPidFile, join(dir, "exec"), "SIGKILL");
  await rm(pidFile, { force: true });
  await rm(containerdPidFile, { force: true });
}

/** Signals the live process a pid file names when its command line carries `marker`, and waits for it. */
async function stopIfOurs(pidFile: string, marker: string, signal: NodeJS.Signals): Promise<void> {
  const pid = Number((await readFile(pidFile, "utf8").catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const alive = async (): Promise<boolean> => (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).includes(marker);
  if (!(await alive())) return;
  process.kill(pid, signal);
  const deadline = Date.now() + STOP_GRACE_MS;
  while (Date.now() < deadline && (await alive())) await sleep(50);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** A child killed by a signal keeps `exitCode` null: only `signalCode` tells (Node's child_process). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
