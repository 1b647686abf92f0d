import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { LOAD_DOCKER } from "./docker-engine.js";
import { withRootlessUser, type RootlessEngine } from "./rootless-user.js";

/** Where Debian's docker.io puts the script (upstream's rootless extras put it on PATH). */
const DOCKERD_ROOTLESS = ["/usr/bin/dockerd-rootless.sh", "/usr/share/docker.io/contrib/dockerd-rootless.sh"].find((path) => existsSync(path));

/**
 * A fresh unprivileged user (withRootlessUser) running Docker's rootless daemon: Debian's
 * `rootlesskit` through `dockerd-rootless.sh`, with its own data root, exec root, pid file, config
 * file and socket under the user's directory, and `images` loaded from root's Podman storage
 * (infra/images/load-docker.sh, through the daemon's socket).
 *
 * No networking the daemon does not need: rootlesskit keeps the host's network namespace
 * (`--net=host`: no slirp4netns, no tap device, no port driver), in which the user's daemon can
 * change nothing; no bridge, no iptables. Helpers run with `--network none` anyway.
 */
export function startRootlessDocker(images: readonly string[]): Promise<RootlessEngine> {
  return withRootlessUser("rootless-docker", async (user) => {
    if (DOCKERD_ROOTLESS === undefined) throw new Error("dockerd-rootless.sh is missing (Debian: docker.io, with rootlesskit)");
    const dir = join(user.root, "docker");
    await mkdir(dir);
    await writeFile(join(dir, "daemon.json"), "{}\n");
    await chown(dir, user.uid, user.uid);
    const socketPath = join(dir, "docker.sock");
    const args = [
      `--config-file=${join(dir, "daemon.json")}`,
      `--data-root=${join(dir, "data")}`,
      `--exec-root=${join(dir, "exec")}`,
      `--host=unix://${socketPath}`,
      `--pidfile=${join(dir, "docker.pid")}`,
      "--bridge=none",
      "--iptables=false",
      "--ip-forward=false",
      "--ip-masq=false",
      "--log-level=warn",
    ];
    // Stopped by `dispose`, which kills every process of the user (rootlesskit, dockerd, containerd, shims).
    await user.startService(DOCKERD_ROOTLESS, args, socketPath, {
      DOCKERD_ROOTLESS_ROOTLESSKIT_NET: "host",
      DOCKERD_ROOTLESS_ROOTLESSKIT_PORT_DRIVER: "none",
      // Else a /tmp/rootlesskit<random> that only a graceful exit removes.
      DOCKERD_ROOTLESS_ROOTLESSKIT_FLAGS: `--state-dir=${join(dir, "rootlesskit")}`,
    });
    await promisify(execFile)(LOAD_DOCKER, [dir, join(dir, "data"), ...images], { maxBuffer: 1024 * 1024 });
    return { user: user.name, uid: user.uid, socketPath, stateDir: user.stateDir, dispose: user.dispose };
  });
}
