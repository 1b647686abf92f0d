import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import { ContainerEngine } from "./container-engine.js";
import { dockerService } from "./docker-service.js";
import type { EngineService } from "./engine-service.js";
import type { HostUidPool } from "./host-uid-pool.js";
import { podmanService } from "./podman-service.js";
import { deriveSeccompProfile } from "./seccomp-profile.js";

/** Podman's default profile (containers-common); our profile is derived from it. */
export const ENGINE_DEFAULT_SECCOMP = "/usr/share/containers/seccomp.json";

export interface ContainerEngineConfig {
  readonly kind: "podman" | "docker";
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
   * Host uids to run each helper as, one per run in flight: for a rootful engine (a root worker's).
   * Without it every helper runs as uid 10001.
   */
  readonly uids?: HostUidPool;
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
    ...(config.uids === undefined ? {} : { uids: config.uids }),
  });
  if (config.janitorIntervalMs !== undefined) await engine.startJanitor(config.janitorIntervalMs);
  return engine;
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
function memoryCgroups(kind: "podman" | "docker", privateDaemon: boolean): ((id: string) => string) | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (kind === "podman") return (id) => `/sys/fs/cgroup/memory/libpod_parent/libpod-${id}`;
  return privateDaemon ? (id) => `/sys/fs/cgroup/memory/docker/${id}` : undefined;
}
