import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { reachableTempDir } from "./temp-dirs.js";
import { CONTAINERS_CONF } from "./sandbox-specs.js";

const run = promisify(execFile);

export interface RootlessPodman {
  readonly user: string;
  readonly uid: number;
  /** The API socket of the user's `podman system service`. */
  readonly socketPath: string;
  /** A worker state directory the user can read (the seccomp profile is read by the user's Podman). */
  readonly stateDir: string;
  /** Stops the service, kills every process of the user, deletes the user and its files. */
  dispose(): Promise<void>;
}

/**
 * A fresh unprivileged user with subordinate id ranges (useradd assigns them from login.defs),
 * `images` copied from root's storage into its own, and its `podman system service` on a socket
 * in its runtime directory.
 */
export async function startRootlessPodman(images: readonly string[]): Promise<RootlessPodman> {
  const root = await reachableTempDir("rootless");
  const user = `rbrl${randomBytes(4).toString("hex")}`;
  const home = join(root, "home");
  const runtimeDir = join(root, "run");
  await run("useradd", ["--create-home", "--home-dir", home, "--shell", "/usr/sbin/nologin", user]);
  const uid = Number((await run("id", ["-u", user])).stdout.trim());
  const dispose = async (): Promise<void> => {
    await killUserProcesses(uid);
    await run("userdel", [user]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    const subuid = await readFile("/etc/subuid", "utf8");
    if (!subuid.split("\n").some((line) => line.startsWith(`${user}:`))) throw new Error(`useradd assigned ${user} no subordinate uids`);
    await mkdir(runtimeDir, { mode: 0o700 });
    await chown(runtimeDir, uid, uid);
    const stateDir = join(root, "state");
    await mkdir(stateDir);
    await chmod(stateDir, 0o755);
    const env = { HOME: home, XDG_RUNTIME_DIR: runtimeDir, PATH: "/usr/sbin:/usr/bin:/sbin:/bin", CONTAINERS_CONF };
    for (const image of images) {
      const saved = join(root, "image.tar");
      // Saved from root's storage by root's Podman, loaded into the user's own storage.
      await run("podman", ["save", "--quiet", "--output", saved, image], { env: { PATH: env.PATH, HOME: "/root", CONTAINERS_CONF } });
      await chmod(saved, 0o644);
      await run("podman", ["load", "--quiet", "--input", saved], { env, uid, gid: uid });
      await rm(saved);
    }
    const socketPath = join(runtimeDir, "podman.sock");
    // Stopped by `dispose`, which kills every process of the user (the service and its pause process).
    spawn("podman", ["system", "service", "--time=0", `unix://${socketPath}`], { env, uid, gid: uid, stdio: "ignore" }).unref();
    for (let tries = 0; tries < 100 && !existsSync(socketPath); tries++) await sleep(50);
    if (!existsSync(socketPath)) throw new Error("the rootless podman service did not create its socket");
    return { user, uid, socketPath, stateDir, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** SIGKILLs every process of `uid` (the service, its pause process, conmons), each by its pid. */
async function killUserProcesses(uid: number): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids: number[] = [];
    for (const name of await readdir("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) pids.push(Number(name));
    }
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await sleep(100);
  }
}
