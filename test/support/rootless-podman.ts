import { execFile } from "node:child_process";
import { chmod, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { withRootlessUser, type RootlessEngine } from "./rootless-user.js";
import { CONTAINERS_CONF } from "./sandbox-specs.js";

const run = promisify(execFile);

/** The name the rootless Podman suites use. */
export type RootlessPodman = RootlessEngine;

/**
 * A fresh unprivileged user (withRootlessUser), `images` copied from root's storage into its own,
 * and its `podman system service` on a socket in its runtime directory.
 */
export function startRootlessPodman(images: readonly string[]): Promise<RootlessPodman> {
  return withRootlessUser("rootless", async (user) => {
    const env = { ...user.env, CONTAINERS_CONF };
    for (const image of images) {
      const saved = join(user.root, "image.tar");
      // Saved from root's storage by root's Podman, loaded into the user's own storage.
      await run("podman", ["save", "--quiet", "--output", saved, image], { env: { PATH: env.PATH, HOME: "/root", CONTAINERS_CONF } });
      await chmod(saved, 0o644);
      await run("podman", ["load", "--quiet", "--input", saved], { env, uid: user.uid, gid: user.uid });
      await rm(saved);
    }
    const socketPath = join(user.runtimeDir, "podman.sock");
    // Stopped by `dispose`, which kills every process of the user (the service and its pause process).
    await user.startService("podman", ["system", "service", "--time=0", `unix://${socketPath}`], socketPath, { CONTAINERS_CONF });
    return { user: user.name, uid: user.uid, socketPath, stateDir: user.stateDir, dispose: user.dispose };
  });
}
