import { setTimeout as sleep } from "node:timers/promises";
import type Dockerode from "dockerode";
import { LABELS } from "@reviewbot/sandbox/container-profile";

/**
 * Waits until the engine behind `docker` holds none of our containers. A run's container is removed
 * in the background; a Podman service SIGKILLed mid-removal leaves it "Removing" in Podman's store,
 * where it breaks every later listing on the host (seen in CI: "getting container from store …
 * container not known"). Tests that kill an engine wait for this first.
 */
export async function untilNoContainers(docker: Dockerode, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } })).length > 0) {
    if (Date.now() > deadline) throw new Error(`our containers were not removed within ${String(timeoutMs)} ms`);
    await sleep(100);
  }
}
