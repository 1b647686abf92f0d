import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Dockerode from "dockerode";
import { ContainerEngine } from "./container-engine.js";
import { PodmanService } from "./podman-service.js";
import { deriveSeccompProfile } from "./seccomp-profile.js";

/** Podman's default profile (containers-common); our profile is derived from it. */
export const ENGINE_DEFAULT_SECCOMP = "/usr/share/containers/seccomp.json";

export interface ContainerEngineConfig {
  readonly kind: "podman" | "docker";
  /** An engine API socket to use. For Podman, when absent, the worker runs its own service. */
  readonly socketPath?: string;
  /** Worker-owned directory for the private socket and the seccomp profile. */
  readonly stateDir: string;
  /** infra/podman/containers.conf, for a supervised Podman service. */
  readonly containersConf: string;
  readonly seccompBase?: string;
  /** When set, reap expired containers at start-up and then at this interval. */
  readonly janitorIntervalMs?: number;
}

/**
 * Builds a container engine: the API client, our seccomp profile in the form the engine takes
 * (Podman's API reads a file path; Docker's takes the JSON inline) and, for Podman without a
 * configured socket, a supervised private `podman system service`.
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
  const service =
    config.kind === "podman" && config.socketPath === undefined
      ? new PodmanService({ socketPath: join(config.stateDir, "podman.sock"), containersConf: config.containersConf })
      : undefined;
  const socketPath = service?.socketPath ?? config.socketPath ?? "/var/run/docker.sock";
  const docker = new Dockerode({ socketPath });
  const memoryCgroupDir = podmanMemoryCgroups(config.kind);
  const engine = new ContainerEngine({
    name: config.kind,
    docker,
    seccomp,
    stateDir: config.stateDir,
    ...(service === undefined ? {} : { service }),
    ...(memoryCgroupDir === undefined ? {} : { memoryCgroupDir }),
  });
  if (config.janitorIntervalMs !== undefined) await engine.startJanitor(config.janitorIntervalMs);
  return engine;
}

/** Rootful Podman with the cgroupfs manager on cgroup v1 (these hosts) puts containers here. */
const PODMAN_MEMORY_CGROUPS = "/sys/fs/cgroup/memory/libpod_parent";

/** Our Podman runs rootful with cgroupfs (infra/podman/containers.conf); Docker's layout differs. */
function podmanMemoryCgroups(kind: "podman" | "docker"): ((id: string) => string) | undefined {
  if (kind !== "podman" || process.getuid?.() !== 0) return undefined;
  return (id) => `${PODMAN_MEMORY_CGROUPS}/libpod-${id}`;
}
