import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import { ContainerEngine } from "./container-engine.js";
import { dockerService } from "./docker-service.js";
import type { EngineService } from "./engine-service.js";
import { DaemonUidNames, NAMESPACED_SANDBOX_UIDS } from "../uids/daemon-uid-names.js";
import { daemonUidSpace } from "./daemon-uid-space.js";
import { checkSandboxUids, DEFAULT_SANDBOX_UIDS, HostUidPool, type HostUidRange } from "../uids/host-uid-pool.js";
import { podmanService } from "./podman-service.js";
import type { RunUids } from "../uids/run-uid.js";
import { isRootWorker } from "../uids/sandbox-user.js";
import { deriveSeccompProfile } from "../seccomp-profile.js";
import type { ContainerEngineName } from "@reviewbot/core/engine-names";

/** Podman's default profile (containers-common); our profile is derived from it. */
export const ENGINE_DEFAULT_SECCOMP = "/usr/share/containers/seccomp.json";

export interface ContainerEngineConfig {
  readonly kind: ContainerEngineName;
  /**
   * An engine API socket to use. When absent the worker runs its own: a `podman system service`,
   * or (as root) a `dockerd` on `<stateDir>/docker.sock`.
   */
  readonly socketPath?: string;
  /** A private dockerd's `--data-root` (default `<stateDir>/data`; setup loads the helper images there). */
  readonly dockerDataRoot?: string;
  /** Worker-owned directory for the private socket and the seccomp profile. */
  readonly stateDir: string;
  /** infra/podman/containers.conf, for a supervised Podman service. */
  readonly containersConf: string;
  readonly seccompBase?: string;
  /** When set, reap expired containers at start-up and then at this interval. */
  readonly janitorIntervalMs?: number;
  /**
   * Without a configured socket: host uids to run each helper as, one per run in flight (a root
   * worker's own rootful engine; default a pool over `DEFAULT_SANDBOX_UIDS`).
   */
  readonly uids?: HostUidPool;
  /**
   * With a configured socket to a rootful daemon: the host uids its runs get, leased through the
   * daemon's container names (default `DEFAULT_SANDBOX_UIDS`). A rootless daemon's runs get
   * `NAMESPACED_SANDBOX_UIDS` of its user namespace instead.
   */
  readonly daemonUids?: HostUidRange;
}

/**
 * Builds a container engine: the API client, our seccomp profile in the form the engine takes
 * (Podman's API reads a file path; Docker's takes the JSON inline) and, without a configured
 * socket, a supervised private `podman system service` or `dockerd`.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` for Docker without a socket when not root (a private
 * dockerd needs root; rootless Docker is not supported).
 */
export async function createContainerEngine(config: ContainerEngineConfig): Promise<ContainerEngine> {
  await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  const base: unknown = JSON.parse(await readFile(config.seccompBase ?? ENGINE_DEFAULT_SECCOMP, "utf8"));
  const profile = JSON.stringify(deriveSeccompProfile(base));
  let seccomp = profile;
  if (config.kind === "podman") {
    seccomp = join(config.stateDir, "seccomp.json");
    await writeFile(seccomp, profile, { mode: 0o644 });
  }
  const service = config.socketPath === undefined ? privateService(config) : undefined;
  const socketPath = service?.socketPath ?? config.socketPath ?? "/var/run/docker.sock";
  const docker = new Dockerode({ socketPath });
  const memoryCgroupDir = memoryCgroups(config.kind, service !== undefined);
  const engine = new ContainerEngine({
    name: config.kind,
    docker,
    seccomp,
    stateDir: config.stateDir,
    ...(service === undefined ? {} : { service }),
    ...(memoryCgroupDir === undefined ? {} : { memoryCgroupDir }),
    ...(await runUids(config, docker, service !== undefined)),
  });
  if (config.janitorIntervalMs !== undefined) await engine.startJanitor(config.janitorIntervalMs);
  return engine;
}

/**
 * Where runs get their own uids: a private (rootful) service's from the worker's host pool; a
 * configured socket's from names on that daemon, which every worker using it shares (workers in
 * containers of their own cannot see one another's host leases).
 */
async function runUids(config: ContainerEngineConfig, docker: Dockerode, privateDaemon: boolean): Promise<{ uids?: RunUids }> {
  // A root worker's private service is rootful: host uids, its own pool unless given one (as bwrap's).
  if (privateDaemon && isRootWorker()) return { uids: { kind: "host-pool", pool: config.uids ?? (await HostUidPool.create()) } };
  // A worker that is not root runs its private Podman service rootless: names in its namespace.
  if (privateDaemon) return { uids: { kind: "daemon-names", names: new DaemonUidNames(NAMESPACED_SANDBOX_UIDS, false) } };
  const space = await daemonUidSpace(docker, config.kind).catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    throw new AppError(
      "SANDBOX_UNAVAILABLE",
      `could not ask the ${config.kind} daemon at ${config.socketPath ?? ""} whose uids its containers run as: ${reason}`,
      { cause: err },
    );
  });
  if (space === "namespaced") return { uids: { kind: "daemon-names", names: new DaemonUidNames(NAMESPACED_SANDBOX_UIDS, false) } };
  const range = config.daemonUids ?? DEFAULT_SANDBOX_UIDS;
  await checkSandboxUids(range);
  // Only root can hand a writable mount to another uid; otherwise such runs are refused.
  return { uids: { kind: "daemon-names", names: new DaemonUidNames(range, isRootWorker()) } };
}

function privateService(config: ContainerEngineConfig): EngineService {
  if (config.kind === "podman") return podmanService({ socketPath: join(config.stateDir, "podman.sock"), containersConf: config.containersConf });
  if (process.getuid?.() !== 0) {
    throw new AppError("SANDBOX_UNAVAILABLE", "a private dockerd needs root: set REVIEWBOT_DOCKER_SOCKET to a Docker daemon's socket");
  }
  return dockerService({ dir: config.stateDir, dataRoot: config.dockerDataRoot ?? join(config.stateDir, "data") });
}

/**
 * Where a root engine with the cgroupfs manager on cgroup v1 (these hosts) puts a container's
 * memory cgroup: rootful Podman (infra/podman/containers.conf) and our private dockerd (whose
 * cgroup parent is `docker`). Another Docker daemon's layout is not ours to assume.
 */
function memoryCgroups(kind: ContainerEngineName, privateDaemon: boolean): ((id: string) => string) | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (kind === "podman") return (id) => `/sys/fs/cgroup/memory/libpod_parent/libpod-${id}`;
  return privateDaemon ? (id) => `/sys/fs/cgroup/memory/docker/${id}` : undefined;
}
