import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { ephemeralRedisArgs, freePort } from "./local-redis.js";

/** A throwaway redis-server replicating a primary on 127.0.0.1 (no ACLs, no persistence). */
export interface RedisReplica {
  readonly port: number;
  /** Runs one redis-cli command against the replica. */
  command(...args: string[]): Promise<string>;
  /** SIGSTOP: the primary still lists it connected (until repl-timeout) but it acknowledges nothing. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** Starts `redis-server --replicaof` the primary and waits until the link is up. */
export async function startRedisReplica(primaryPort: number): Promise<RedisReplica> {
  const port = await freePort();
  const child = spawn("redis-server", [...ephemeralRedisArgs(port), "--replicaof", "127.0.0.1", String(primaryPort)], {
    stdio: "ignore",
  });
  const command = async (...args: string[]): Promise<string> =>
    (await promisify(execFile)("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args])).stdout.trim();
  for (let tries = 0; !(await command("INFO", "replication").catch(() => "")).includes("master_link_status:up"); tries++) {
    if (tries > 100) throw new Error("the replica did not connect to its primary");
    await sleep(50);
  }
  return {
    port,
    command,
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await once(child, "exit");
    },
  };
}
