import type Dockerode from "dockerode";
import type { ContainerEngineName } from "@reviewbot/core/engine-names";

/**
 * Whose uids a daemon's containers run as: the host's (a rootful daemon) or those of a user
 * namespace of its own (rootless Podman or Docker, Docker's userns-remap), where a container uid N
 * is the host uid its user's subordinate range maps N to.
 */
export type DaemonUidSpace = "host" | "namespaced";

/**
 * Asks the daemon behind `docker`: Podman's libpod info says `rootless`; Docker's info lists
 * `name=rootless` or `name=userns` among its security options. Podman's Docker-compatible info
 * says neither, hence its own endpoint.
 */
export async function daemonUidSpace(docker: Dockerode, kind: ContainerEngineName): Promise<DaemonUidSpace> {
  if (kind === "podman") return (await libpodRootless(docker)) ? "namespaced" : "host";
  const info = (await docker.info()) as { SecurityOptions?: unknown };
  const options = Array.isArray(info.SecurityOptions) ? info.SecurityOptions : [];
  return options.some((option) => option === "name=rootless" || option === "name=userns") ? "namespaced" : "host";
}

interface Dial {
  dial(options: { path: string; method: string; statusCodes: Record<number, boolean>; options: object }, callback: (err: unknown, data: unknown) => void): void;
}

async function libpodRootless(docker: Dockerode): Promise<boolean> {
  // docker-modem's dial is untyped (`modem: any`); Podman 4 serves libpod under any /v4.x prefix.
  const modem = docker.modem as Dial;
  const info = await new Promise<unknown>((resolve, reject) => {
    modem.dial({ path: "/v4.0.0/libpod/info", method: "GET", statusCodes: { 200: true }, options: {} }, (err, data) => {
      if (err === null || err === undefined) resolve(data);
      else reject(err instanceof Error ? err : new Error("the libpod info request failed"));
    });
  });
  const rootless = (info as { host?: { security?: { rootless?: unknown } } } | null)?.host?.security?.rootless;
  // Unreadable is not rootless: the uids are then host uids, which is the stricter reading.
  return rootless === true;
}
