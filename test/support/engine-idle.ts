import { setTimeout as sleep } from "node:timers/promises";
import type Dockerode from "dockerode";
import { LABELS } from "@reviewbot/sandbox/container-profile";

/**
 * Waits until the engine behind `docker` holds none of our containers (or, with `names`, none of
 * those names). A run's container is removed in the background; a Podman service SIGKILLed
 * mid-removal leaves it "Removing" in Podman's store, where it breaks every later listing on the
 * host (seen in CI: "getting container from store … container not known"). Tests that kill an
 * engine wait for this first. The docker suites share one data root, one file after another, so a
 * test that must not see an earlier file's leftovers names the containers it waits for.
 */
export async function untilNoContainers(docker: Dockerode, timeoutMs: number, names?: readonly string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const ours = async (): Promise<Dockerode.ContainerInfo[]> =>
    (await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } })).filter(
      (container) => names === undefined || container.Names.some((name) => names.includes(name.replace(/^\//, ""))),
    );
  for (let left = await ours(); left.length > 0; left = await ours()) {
    if (Date.now() > deadline) {
      const seen = left.map((container) => `${container.Names.join(",")} (${container.State})`).join("; ");
      throw new Error(`our containers were not removed within ${String(timeoutMs)} ms: ${seen}`);
    }
    await sleep(100);
  }
}
