import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { CONTAINERS_CONF } from "./sandbox-specs.js";
import { reachableTempDir } from "./temp-dirs.js";

/** A container engine on its own supervised Podman service, with a work tree the sandbox can read. */
export interface PodmanEngineFixture {
  readonly stateDir: string;
  readonly worktree: string;
  readonly engine: ContainerEngine;
  /** A client of the same Podman service, to inspect containers and events. */
  readonly docker: Dockerode;
  /** Closes the engine and removes both directories. */
  close(): Promise<void>;
}

export async function openPodmanEngine(label: string): Promise<PodmanEngineFixture> {
  const stateDir = await mkdtemp(join(tmpdir(), `reviewbot-podman-${label}-`));
  const worktree = await reachableTempDir("worktree");
  const engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF });
  return {
    stateDir,
    worktree,
    engine,
    docker: new Dockerode({ socketPath: join(stateDir, "podman.sock") }),
    close: async () => {
      await engine.close();
      await rm(stateDir, { recursive: true, force: true });
      await rm(worktree, { recursive: true, force: true });
    },
  };
}
