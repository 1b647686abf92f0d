import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Dockerode from "dockerode";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { LOAD_DOCKER } from "./docker-engine.js";
import { BASE_IMAGE, CONTAINERS_CONF } from "./sandbox-specs.js";

const run = promisify(execFile);

/** A private dockerd for one Compose test: its own data root, exec root and socket, removed by `stop`. */
export interface ComposeDaemon {
  readonly socketPath: string;
  /** The socket's group: a container joining it (and no one else but root) may use the daemon. */
  readonly socketGid: number;
  readonly docker: Dockerode;
  /** The daemon's pid, to check it is gone after `stop`. */
  readonly pid: number;
  /** Every directory the daemon wrote to (state, exec and data root): none may remain after `stop`. */
  readonly dirs: readonly string[];
  /** Stops the daemon (SIGTERM, then SIGKILL) and removes its directories. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a dockerd as the sandbox package runs one (packages/sandbox/src/container/docker-service.ts: an
 * empty config, no default bridge, no iptables rules, IP forwarding and masquerading left as the
 * host has them) on a fresh data root, and loads `images` (if any) from root Podman's storage into it.
 * User-defined bridge networks still work without the default bridge: Compose's networks become
 * `br-*` interfaces with the gateway's address on the host (removed with the networks) and
 * published ports go through docker-proxy. Without iptables Docker does not isolate networks from
 * each other or from the host: an `internal` network has no route out, nothing more.
 */
export async function startComposeDaemon(images: readonly string[], socketGid: number): Promise<ComposeDaemon> {
  const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-compose-dockerd-"));
  // Not under /tmp: the image layers are large and /var/tmp is where the other test daemons keep theirs.
  const dataRoot = await mkdtemp("/var/tmp/reviewbot-compose-docker-");
  const dirs = [stateDir, dataRoot];
  const engine = await createContainerEngine({ kind: "docker", stateDir, dockerDataRoot: dataRoot, containersConf: CONTAINERS_CONF });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await engine.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };
  try {
    // Any API call starts the engine's dockerd.
    await engine.imageId(BASE_IMAGE).catch(() => "");
    const socketPath = join(stateDir, "docker.sock");
    if (!existsSync(socketPath)) throw new Error(`dockerd did not create ${socketPath}`);
    await chown(socketPath, 0, socketGid);
    await chmod(socketPath, 0o660);
    const pid = Number((await readFile(join(stateDir, "docker.pid"), "utf8")).trim());
    if (images.length > 0) await run(LOAD_DOCKER, [stateDir, dataRoot, ...images], { maxBuffer: 1024 * 1024 });
    return { socketPath, socketGid, docker: new Dockerode({ socketPath }), pid, dirs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
