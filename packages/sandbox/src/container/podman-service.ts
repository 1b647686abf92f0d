import { spawn, type ChildProcess } from "node:child_process";
import { dirname } from "node:path";
import type { EngineService } from "./engine-service.js";
import { SupervisedDaemon } from "./supervised-daemon.js";
import { inheritedEnv, SYSTEM_PATH } from "@reviewbot/core/inherited-env";

const STOP_GRACE_MS = 250;

export interface PodmanServiceOptions {
  /** Private socket of this worker, e.g. `<state dir>/podman.sock`. */
  readonly socketPath: string;
  /** infra/podman/containers.conf (docs/architecture.md, 'Host facts': runc and cgroupfs, explicit nofile and nproc). */
  readonly containersConf: string;
  readonly startTimeoutMs?: number;
}

/**
 * This worker's own `podman system service` on a private socket, supervised: started on first
 * use, started again after it dies (SupervisedDaemon).
 */
export function podmanService(options: PodmanServiceOptions): EngineService {
  return new SupervisedDaemon({
    name: "podman system service",
    socketPath: options.socketPath,
    startTimeoutMs: options.startTimeoutMs ?? 15_000,
    // A graceful stop takes Podman 1.5 s or more (longer while API connections idle), and the
    // service keeps nothing of ours: every run's container is removed before close, conmon
    // supervises containers, and Podman's database is transactional. A short grace, then SIGKILL.
    stopGraceMs: STOP_GRACE_MS,
    launch: () => Promise.resolve(launchPodman(options)),
  });
}

function launchPodman(options: PodmanServiceOptions): ChildProcess {
  const env = { ...inheritedEnv({ PATH: SYSTEM_PATH, HOME: "/root", XDG_RUNTIME_DIR: null }), CONTAINERS_CONF: options.containersConf };
  return spawn("podman", ["system", "service", "--time=0", `unix://${options.socketPath}`], {
    env,
    // conmon (Podman 4.3, cgroup v1) drops an empty `oom` marker in its working directory.
    cwd: dirname(options.socketPath),
    stdio: ["ignore", "ignore", "pipe"],
  });
}
