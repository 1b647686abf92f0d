import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { startChildService, type ChildService } from "./child-service.js";
import { freePort } from "./free-port.js";

export interface PrivateRedis {
  readonly url: string;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * A redis-server of the fleet's own on 127.0.0.1 and a free port, with its data (append-only
 * file, as BullMQ's docs ask for a queue) in a directory of its own under `dir`.
 */
export async function startPrivateRedis(dir: string): Promise<PrivateRedis> {
  const port = await freePort();
  const dataDir = join(dir, `redis-${process.pid}-${port}`);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const server = startChildService(
    "redis",
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--dir", dataDir, "--appendonly", "yes", "--save", "", "--protected-mode", "yes"],
    { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    join(dataDir, "redis.log"),
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await server.stop(5000);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForPing(url, server);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}

async function waitForPing(url: string, server: ChildService): Promise<void> {
  const connection = createRedisConnection(url, { name: "cli-fleet-probe", blocking: false });
  connection.on("error", () => undefined);
  try {
    for (let tries = 0; tries < 100; tries += 1) {
      if (server.child.exitCode !== null) throw new Error("redis-server exited at start (is it installed?)");
      if ((await connection.ping().catch(() => "")) === "PONG") return;
      await sleep(100);
    }
    throw new Error("redis-server did not answer");
  } finally {
    connection.disconnect();
  }
}
