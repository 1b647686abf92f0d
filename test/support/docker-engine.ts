import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import { engineFixture, type ContainerEngineFixture } from "./podman-engine.js";
import { BASE_IMAGE, CONTAINERS_CONF } from "./sandbox-specs.js";
import { reachableTempDir } from "./temp-dirs.js";
import { sandboxUidPool } from "./sandbox-uids.js";

/**
 * The data root the test suites' private dockerds share, one at a time (test files run one after
 * another): the helper images are loaded into it once (infra/images/load-docker.sh, cached by image
 * id), not once per file. Its socket and exec root are each file's own.
 */
export const TEST_DOCKER_DATA_ROOT = "/var/tmp/reviewbot-test-docker";
/** infra/images/load-docker.sh: copies helper images from root Podman's storage into a dockerd. */
export const LOAD_DOCKER = fileURLToPath(new URL("../../infra/images/load-docker.sh", import.meta.url));

/** A container engine on its own private dockerd (started once for the file), with a work tree. */
export async function openDockerEngine(label: string): Promise<ContainerEngineFixture> {
  const stateDir = await mkdtemp(join(tmpdir(), `reviewbot-docker-${label}-`));
  const worktree = await reachableTempDir("worktree");
  const engine = await createContainerEngine({
    kind: "docker",
    stateDir,
    dockerDataRoot: TEST_DOCKER_DATA_ROOT,
    containersConf: CONTAINERS_CONF,
    uids: await sandboxUidPool(),
  });
  try {
    // Any API call starts the engine's dockerd; the script then loads what is missing through it.
    await engine.imageId(BASE_IMAGE).catch(() => "");
    await promisify(execFile)(LOAD_DOCKER, [stateDir, TEST_DOCKER_DATA_ROOT], { maxBuffer: 1024 * 1024 });
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engineFixture("docker", { stateDir, worktree, engine, socketPath: join(stateDir, "docker.sock") });
}
