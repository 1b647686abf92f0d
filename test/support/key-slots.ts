import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { ephemeralRedisArgs, freePort } from "./local-redis.js";

/** Redis Cluster's own answer to "which slot does this key hash to" (CLUSTER KEYSLOT). */
export interface KeySlots {
  slotOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A lone `redis-server --cluster-enabled yes` (no slots assigned, no data) asked CLUSTER KEYSLOT:
 * Redis 7.0 refuses the command unless cluster support is on, and a test should not reimplement
 * CRC16 and the hash-tag rule it checks.
 */
export async function startKeySlots(): Promise<KeySlots> {
  const dir = mkdtempSync(join(tmpdir(), "reviewbot-keyslots-"));
  const port = await freePort();
  const args = [...ephemeralRedisArgs(port, dir), "--cluster-enabled", "yes", "--cluster-config-file", join(dir, "nodes.conf")];
  const server = spawn("redis-server", args, { cwd: dir, stdio: "ignore" });
  const client = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  client.on("error", () => undefined);
  for (let tries = 0; (await client.ping().catch(() => "")) !== "PONG"; tries++) {
    if (tries > 100 || server.exitCode !== null) throw new Error("redis-server --cluster-enabled did not answer");
    await sleep(50);
  }
  return {
    slotOf: async (key) => Number(await client.call("CLUSTER", "KEYSLOT", key)),
    stop: async () => {
      client.disconnect();
      if (server.exitCode === null) {
        server.kill("SIGKILL");
        await once(server, "exit");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
