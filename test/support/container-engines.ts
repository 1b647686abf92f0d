import { openDockerEngine } from "./docker-engine.js";
import { openPodmanEngine, type ContainerEngineFixture } from "./podman-engine.js";

/** The container engines the container suites run on, each on a private service of its own. */
export const CONTAINER_ENGINES: readonly { readonly name: "podman" | "docker"; readonly open: (label: string) => Promise<ContainerEngineFixture> }[] = [
  { name: "podman", open: openPodmanEngine },
  { name: "docker", open: openDockerEngine },
];
