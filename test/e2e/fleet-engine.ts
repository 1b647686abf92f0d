import { join } from "node:path";
import { openDockerEngine, TEST_DOCKER_DATA_ROOT } from "../support/docker-engine.js";

/** The sandbox engines a fleet's workers can run helpers on. */
export const FLEET_ENGINES = ["bwrap", "docker"] as const;
export type FleetEngine = (typeof FLEET_ENGINES)[number];

/** What a fleet's workers need to run helpers on an engine: their environment, and what to stop after them. */
export interface OpenedFleetEngine {
  readonly env: Readonly<Record<string, string>>;
  /** Where the engine keeps state outside the workers' caches (its daemon's own directories). */
  readonly stateDirs: readonly string[];
  close(): Promise<void>;
}

/**
 * bwrap needs nothing but the setting. Docker: one private dockerd for the fleet (the test suites'
 * shared data root, the helper images loaded into it; test/support/docker-engine.ts) whose socket
 * every worker of the fleet is given, as the workers of one host share one daemon
 * (`REVIEWBOT_DOCKER_SOCKET`, docs/sandbox.md "Which daemon"). Each worker still probes it under
 * `require` before it takes a job.
 */
export async function openFleetEngine(engine: FleetEngine): Promise<OpenedFleetEngine> {
  if (engine === "bwrap") return { env: { REVIEWBOT_ENGINE: "bwrap" }, stateDirs: [], close: () => Promise.resolve() };
  const docker = await openDockerEngine("fleet");
  return {
    env: { REVIEWBOT_ENGINE: "docker", REVIEWBOT_DOCKER_SOCKET: docker.socketPath },
    // Its socket and exec root (containerd's bundles), and the data root's containers (their configs).
    stateDirs: [docker.stateDir, join(TEST_DOCKER_DATA_ROOT, "containers")],
    close: () => docker.close(),
  };
}
