import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EngineService } from "./engine-service.js";
import { SupervisedDaemon } from "./supervised-daemon.js";
import { inheritedEnv, SYSTEM_PATH } from "@reviewbot/core/inherited-env";

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
 * This worker's own `dockerd` (as root) on a private socket, supervised like the Podman service
 * (SupervisedDaemon), with its own data root, exec root, pid file and an empty config file (never
 * /etc/docker/daemon.json), and no networking: no bridge, no iptables rules, IP forwarding left as
 * the host has it. Helpers have `--network none`, so nothing more is needed.
 */
export function dockerService(options: DockerServiceOptions): EngineService {
  const socketPath = join(options.dir, "docker.sock");
  return new SupervisedDaemon({
    name: "dockerd",
    socketPath,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    stopGraceMs: STOP_GRACE_MS,
    launch: () => launchDockerd(options, socketPath),
  });
}

async function launchDockerd(options: DockerServiceOptions, socketPath: string): Promise<ChildProcess> {
  const { dir, dataRoot } = options;
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
    `--host=unix://${socketPath}`,
    `--pidfile=${pidFile}`,
    `--containerd-namespace=${namespace}`,
    `--containerd-plugins-namespace=${namespace}-plugins`,
    "--bridge=none",
    "--iptables=false",
    "--ip-forward=false",
    "--ip-masq=false",
    "--log-level=warn",
  ];
  const env = inheritedEnv({ PATH: SYSTEM_PATH, HOME: "/root" });
  return spawn("dockerd", args, { env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
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
