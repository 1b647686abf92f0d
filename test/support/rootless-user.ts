import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, openSync, closeSync } from "node:fs";
import { chmod, chown, mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { reachableTempDir } from "./temp-dirs.js";

const run = promisify(execFile);

/** A fresh unprivileged user for a rootless engine, and the directories the engine needs. */
export interface RootlessUser {
  readonly name: string;
  readonly uid: number;
  /** The user's scratch directory (root-owned, 0755): home, runtime dir, state, logs. */
  readonly root: string;
  /** XDG_RUNTIME_DIR: the user's, 0700. */
  readonly runtimeDir: string;
  /** A worker state directory the user can read (the user's Podman reads the seccomp profile file). */
  readonly stateDir: string;
  /** What the user's engine starts with. */
  readonly env: { readonly HOME: string; readonly XDG_RUNTIME_DIR: string; readonly PATH: string };
  /**
   * Starts `command` as the user, detached (stopped by `dispose`), its output in `<root>/<name>.log`,
   * and waits until it creates `socketPath`; fails with the log's end if it exits first.
   */
  readonly startService: (command: string, args: readonly string[], socketPath: string, env?: Readonly<Record<string, string>>) => Promise<void>;
  /** Kills every process of the user and of its subordinate uids, deletes the user and its files. */
  readonly dispose: () => Promise<void>;
}

/** A rootless engine's API socket, run by a user of its own. */
export interface RootlessEngine {
  readonly user: string;
  readonly uid: number;
  /** The API socket of the user's engine. */
  readonly socketPath: string;
  /** A worker state directory the user can read. */
  readonly stateDir: string;
  /** Stops the engine, kills every process of the user, deletes the user and its files. */
  readonly dispose: () => Promise<void>;
}

/**
 * Creates a user with subordinate id ranges (useradd assigns them from login.defs) and runs
 * `setUp` for it as root; when `setUp` fails, the user is removed again.
 */
export async function withRootlessUser<T>(label: string, setUp: (user: RootlessUser) => Promise<T>): Promise<T> {
  const root = await reachableTempDir(label);
  const name = `rbrl${randomBytes(4).toString("hex")}`;
  const home = join(root, "home");
  await run("useradd", ["--create-home", "--home-dir", home, "--shell", "/usr/sbin/nologin", name]);
  const uid = Number((await run("id", ["-u", name])).stdout.trim());
  const subordinate = await subordinateRange(name);
  const dispose = async (): Promise<void> => {
    await killProcesses((owner) => owner === uid || (subordinate !== null && owner >= subordinate.start && owner < subordinate.end));
    await run("userdel", [name]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    if (subordinate === null) throw new Error(`useradd assigned ${name} no subordinate uids`);
    const runtimeDir = join(root, "run");
    await mkdir(runtimeDir, { mode: 0o700 });
    await chown(runtimeDir, uid, uid);
    const stateDir = join(root, "state");
    await mkdir(stateDir);
    await chmod(stateDir, 0o755);
    const env = { HOME: home, XDG_RUNTIME_DIR: runtimeDir, PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
    const startService = async (command: string, args: readonly string[], socketPath: string, extra: Readonly<Record<string, string>> = {}): Promise<void> => {
      const logFile = join(root, `${name}-${command.split("/").pop() ?? "service"}.log`);
      const log = openSync(logFile, "w");
      const child = spawn(command, args, { env: { ...env, ...extra }, uid, gid: uid, cwd: home, stdio: ["ignore", log, log] });
      closeSync(log);
      child.unref();
      // Set by the exit callback while the loop awaits (an object, so that no read is narrowed).
      const state = { exited: false };
      child.once("exit", () => (state.exited = true));
      for (let tries = 0; tries < 600 && !state.exited && !existsSync(socketPath); tries++) await sleep(50);
      if (!existsSync(socketPath)) {
        const tail = (await readFile(logFile, "utf8").catch(() => "")).split("\n").slice(-20).join("\n");
        throw new Error(`${command} did not create ${socketPath}${state.exited ? " (it exited)" : ""}:\n${tail}`);
      }
    };
    return await setUp({ name, uid, root, runtimeDir, stateDir, env, startService, dispose });
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** The user's subordinate uid range from /etc/subuid, as [start, end). */
export async function subordinateRange(name: string): Promise<{ start: number; end: number } | null> {
  const line = (await readFile("/etc/subuid", "utf8")).split("\n").find((entry) => entry.startsWith(`${name}:`));
  const [, start, count] = line?.split(":") ?? [];
  if (start === undefined || count === undefined) return null;
  return { start: Number(start), end: Number(start) + Number(count) };
}

/**
 * SIGKILLs, each by its pid, every live process whose real uid `owned` accepts: the engine, its
 * helpers (pause process, conmon, rootlesskit, containerd, shims) and whatever runs in containers
 * as a subordinate uid. Zombies are left to their parent.
 */
async function killProcesses(owned: (uid: number) => boolean): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids: number[] = [];
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
      if (/^State:\s+Z/m.test(status)) continue;
      if (owned(Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? "-1"))) pids.push(Number(entry));
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
