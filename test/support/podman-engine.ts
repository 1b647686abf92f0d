import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { CONTAINERS_CONF } from "./sandbox-specs.js";
import { sandboxUidPool } from "./sandbox-uids.js";
import { reachableTempDir } from "./temp-dirs.js";

/**
 * A container engine on its own private service (Podman's or Docker's), running each helper as its
 * own host uid as a root worker's does, with a work tree the sandbox can read.
 */
export interface ContainerEngineFixture {
  readonly name: "podman" | "docker";
  readonly stateDir: string;
  readonly worktree: string;
  readonly engine: ContainerEngine;
  /** The private service's API socket. */
  readonly socketPath: string;
  /** A client of the same service, to inspect containers and events. */
  readonly docker: Dockerode;
  /** Closes the engine (stopping its service) and removes both directories. */
  close(): Promise<void>;
}

/** The name the Podman-only suites use. */
export type PodmanEngineFixture = ContainerEngineFixture;

export async function openPodmanEngine(label: string): Promise<ContainerEngineFixture> {
  const stateDir = await mkdtemp(join(tmpdir(), `reviewbot-podman-${label}-`));
  const worktree = await reachableTempDir("worktree");
  const engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF, uids: await sandboxUidPool() });
  return engineFixture("podman", { stateDir, worktree, engine, socketPath: join(stateDir, "podman.sock") });
}

/** The fixture of an opened engine: a client of its service, and a close that removes both directories. */
export function engineFixture(
  name: ContainerEngineFixture["name"],
  parts: Pick<ContainerEngineFixture, "stateDir" | "worktree" | "engine" | "socketPath">,
): ContainerEngineFixture {
  const { stateDir, worktree, engine, socketPath } = parts;
  return {
    name,
    ...parts,
    docker: new Dockerode({ socketPath }),
    close: async () => {
      await engine.close();
      await rm(stateDir, { recursive: true, force: true });
      await rm(worktree, { recursive: true, force: true });
    },
  };
}
