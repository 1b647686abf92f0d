import { join } from "node:path";
import { helperCeilings } from "@reviewbot/policy/limit-narrowing";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { parseSandboxMode } from "@reviewbot/policy/sandbox-mode";
import { sandboxLimits } from "@reviewbot/sandbox/policy-limits";
import type { SandboxSetup } from "@reviewbot/sandbox/prepare-sandbox";
import type { SandboxEngineName } from "@reviewbot/core/engine-names";
import type { RuntimeConfig } from "./runtime-config.js";

/**
 * The sandbox settings from the operator's configuration. `auto` tries the rootful container
 * engine first (strongest isolation: its own mount, PID, network and IPC namespaces plus cgroup
 * limits), then Docker when a socket is configured, then bubblewrap. `REVIEWBOT_ENGINE=docker`
 * without `REVIEWBOT_DOCKER_SOCKET` runs the worker's own private dockerd (root only); `auto` never
 * starts one, since a daemon is heavy and Podman comes first anyway.
 *
 * @throws AppError `CONFIG_INVALID` for an unknown REVIEWBOT_SANDBOX mode.
 */
export function sandboxSetup(config: RuntimeConfig, operator: OperatorPolicy): SandboxSetup {
  const engines: SandboxEngineName[] =
    config.REVIEWBOT_ENGINE === "auto"
      ? ["podman", ...(config.REVIEWBOT_DOCKER_SOCKET === undefined ? [] : (["docker"] as const)), "bwrap"]
      : [config.REVIEWBOT_ENGINE];
  return {
    mode: parseSandboxMode(config.REVIEWBOT_SANDBOX),
    engines,
    stateDir: join(config.REVIEWBOT_CACHE_DIR, "sandbox"),
    containersConf: config.REVIEWBOT_CONTAINERS_CONF,
    ...(config.REVIEWBOT_PODMAN_SOCKET === undefined ? {} : { podmanSocket: config.REVIEWBOT_PODMAN_SOCKET }),
    ...(config.REVIEWBOT_DOCKER_SOCKET === undefined ? {} : { dockerSocket: config.REVIEWBOT_DOCKER_SOCKET }),
    images: Object.values(operator.images),
    probeImage: operator.images[operator.defaultImage] ?? "",
    limits: sandboxLimits(helperCeilings(operator.limits)),
    ...(config.REVIEWBOT_SANDBOX_UIDS === undefined ? {} : { uids: config.REVIEWBOT_SANDBOX_UIDS }),
  };
}
