import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

export interface LocalRedis {
  readonly port: number;
  readonly url: string;
  /** Runs one redis-cli command against it and returns the reply. */
  command(...args: string[]): Promise<string>;
  /** Stops the server (SIGKILL) and starts it again on the same port and data directory. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalRedisOptions {
  /**
   * Keep data in this directory with an fsync-always append-only file, as production runs it
   * (AOF), so a restart loses nothing that was acknowledged. Without it the server is ephemeral.
   */
  readonly dataDir?: string;
}

/** A throwaway redis-server on 127.0.0.1: a service on the host's loopback. */
export async function startLocalRedis(options: LocalRedisOptions = {}): Promise<LocalRedis> {
  const port = await freePort();
  const persistence =
    options.dataDir === undefined
      ? ["--save", "", "--appendonly", "no"]
      : ["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", options.dataDir];
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--maxmemory-policy", "noeviction", ...persistence];
  const command = async (...argv: string[]): Promise<string> =>
    (await promisify(execFile)("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...argv])).stdout.trim();
  const start = async (): Promise<ChildProcess> => {
    const child = spawn("redis-server", args, { stdio: "ignore" });
    for (let tries = 0; ; tries++) {
      if ((await command("PING").catch(() => "")) === "PONG") return child;
      if (tries > 100) throw new Error("redis-server did not answer");
      await sleep(50);
    }
  };
  const kill = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  };
  let server = await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    command,
    restart: async (downMs = 0) => {
      await kill(server);
      await sleep(downMs);
      server = await start();
    },
    stop: () => kill(server),
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}
