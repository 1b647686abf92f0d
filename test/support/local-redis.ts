import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

export interface LocalRedis {
  readonly port: number;
  /** Runs one redis-cli command against it and returns the reply. */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** A throwaway redis-server on 127.0.0.1 (no persistence): a service on the host's loopback. */
export async function startLocalRedis(): Promise<LocalRedis> {
  const port = await freePort();
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const command = async (...args: string[]): Promise<string> =>
    (await promisify(execFile)("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args])).stdout.trim();
  for (let tries = 0; ; tries++) {
    if ((await command("PING").catch(() => "")) === "PONG") break;
    if (tries > 100) throw new Error("redis-server did not answer");
    await sleep(50);
  }
  return {
    port,
    command,
    stop: async () => {
      if (server.exitCode === null) {
        server.kill("SIGKILL");
        await once(server, "exit");
      }
    },
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
