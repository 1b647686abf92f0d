import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { ActionSettings } from "./action-settings.js";
import { buildHelperImages } from "./build-helper-images.js";
import { readImagesManifest } from "./helper-images-manifest.js";
import { loadHelperImages } from "./load-helper-images.js";

/** Where GitHub-hosted Ubuntu runners' Docker listens. */
const RUNNER_DOCKER_SOCKET = "/var/run/docker.sock";
/** The bundle is `dist-action/index.js` of the action's repository (`$GITHUB_ACTION_PATH`), which holds infra/. */
const RECIPES_DIR = fileURLToPath(new URL("../infra/images", import.meta.url));

export type HelperImages =
  /** Nothing to prepare: sandbox off, engine podman or bwrap, or no Docker daemon. */
  | { readonly kind: "skipped"; readonly dockerSocket?: string }
  /** In the daemon at `dockerSocket`, with the ids the cache's manifest records. */
  | { readonly kind: "ready"; readonly dockerSocket: string }
  /** Neither in the cache nor buildable: the engine's probe decides (the images may be there already). */
  | { readonly kind: "missing"; readonly dockerSocket: string; readonly reason: string }
  /** The cache failed its check: no engine runs helpers on what it loaded. */
  | { readonly kind: "refused"; readonly reason: string };

/** The runner's Docker daemon: `DOCKER_HOST` when it names a unix socket, else GitHub-hosted runners' socket if there. */
export function runnerDockerSocket(env: NodeJS.ProcessEnv): string | undefined {
  const host = env.DOCKER_HOST;
  if (host !== undefined && host.startsWith("unix:///")) return host.slice("unix://".length);
  return existsSync(RUNNER_DOCKER_SOCKET) ? RUNNER_DOCKER_SOCKET : undefined;
}

/**
 * Puts the helper images into the runner's Docker daemon for the docker engine: loaded from the
 * `image-cache` directory when it holds an archive and manifest (checked, see loadHelperImages),
 * else built with the action's recipes and saved there first (build-helper-images.ts).
 */
export async function prepareHelperImages(
  settings: ActionSettings,
  where: { readonly runnerTemp: string; readonly dockerSocket: string | undefined },
  logger: Logger,
): Promise<HelperImages> {
  const socket = where.dockerSocket;
  if (socket === undefined) return { kind: "skipped" };
  if (settings.sandbox === "off" || settings.engine === "podman" || settings.engine === "bwrap") return { kind: "skipped" };
  const cacheDir = settings.imageCache ?? join(where.runnerTemp, "reviewbot-images");
  try {
    let manifest = await readImagesManifest(cacheDir);
    if (manifest === undefined) {
      const unbuilt = await buildHelperImages(cacheDir, RECIPES_DIR, logger);
      if (unbuilt !== null) {
        const reason = `no helper images: the image cache ${cacheDir} holds none and ${unbuilt}; give an image-cache directory restored by actions/cache, or run on a runner with passwordless sudo`;
        return { kind: "missing", dockerSocket: socket, reason };
      }
      manifest = await readImagesManifest(cacheDir);
    }
    if (manifest === undefined) return { kind: "refused", reason: "the image build wrote no manifest" };
    const refused = await loadHelperImages(cacheDir, manifest, socket);
    if (refused !== null) return { kind: "refused", reason: refused };
    logger.info({ cacheDir }, "helper images loaded into the runner's Docker");
    return { kind: "ready", dockerSocket: socket };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return { kind: "refused", reason: `the image cache's manifest is refused: ${err.message}` };
  }
}
