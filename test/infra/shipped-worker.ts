import { chown, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { writeComposeDeployment } from "../support/compose-deployment.js";
import { composeProject, type ComposeRun } from "../support/compose-project.js";
import { generateTestAppKey } from "../support/github-stand-in.js";
import type { RootlessPodman } from "../support/rootless-podman.js";
import type { ComposedStack } from "./compose-stack.js";

export interface ShippedWorkerRun {
  /** The worker's one run: its exit status and everything it printed. */
  readonly run: ComposeRun;
  /** What its project left on the daemon after `down -v`. */
  readonly leftovers: { containers: string[]; volumes: string[]; networks: string[] };
}

/**
 * Runs docker-compose.yml's worker service as shipped, without the override: helpers on the host
 * user's rootless Podman, whose socket systemd's podman.socket puts at
 * `$XDG_RUNTIME_DIR/podman/podman.sock`, the worker as that user's uid:gid (REVIEWBOT_WORKER_USER,
 * as docs/deployment.md says for Docker), its clone cache and its two secrets that user's. One run
 * (`run --rm --no-deps worker`: the worker stops at its readiness probe, before it needs Redis or
 * the api) in a project of its own on the stack's daemon, then `down -v`.
 */
export async function runShippedWorker(stack: ComposedStack, rootless: RootlessPodman): Promise<ShippedWorkerRun> {
  const dir = join(stack.root, "rootless");
  const cache = join(dir, "cache");
  const runtimeDir = join(dir, "xdg-runtime");
  await mkdir(cache, { recursive: true });
  await chown(cache, rootless.uid, rootless.uid);
  await mkdir(join(runtimeDir, "podman"), { recursive: true });
  // Where podman.socket would listen; the stand-in user's service listens in its own runtime dir.
  await symlink(rootless.socketPath, join(runtimeDir, "podman", "podman.sock"));
  const deployment = await writeComposeDeployment(join(dir, "deploy"), generateTestAppKey().privateKey, rootless.uid);
  const project = composeProject({
    name: `${stack.project.name}rootless`,
    files: ["docker-compose.yml"],
    docker: stack.daemon.docker,
    socketPath: stack.daemon.socketPath,
    env: {
      REVIEWBOT_DEPLOY_DIR: deployment.dir,
      REVIEWBOT_HOST_CACHE_DIR: cache,
      XDG_RUNTIME_DIR: runtimeDir,
      REVIEWBOT_WORKER_USER: `${rootless.uid}:${rootless.uid}`,
    },
  });
  try {
    const run = await project.tryCompose(["run", "--rm", "--no-deps", "worker"], 180_000);
    await project.compose(["down", "-v"]);
    return { run, leftovers: await project.leftovers() };
  } finally {
    await project.tryCompose(["down", "-v"]);
  }
}
