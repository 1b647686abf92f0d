import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REDIS_USERS, type RedisRole } from "@reviewbot/queue/redis-acl";
import type { RedisTarget } from "@reviewbot/queue/redis-target";
import { freePort, startLocalRedis, type LocalRedis, waitForRedis } from "./local-redis.js";

export const PRIMARY_NAME = "reviewbot";

/**
 * A Sentinel-watched deployment on 127.0.0.1, as docs/deployment.md describes it: a primary and a
 * replica that load the same ACL file (the project's users), and one Sentinel (quorum 1) with a
 * password of its own that logs in to them as the admin. Failover is quick: the primary is down
 * after 1 s without an answer.
 */
export interface RedisSentinelSet {
  readonly primary: LocalRedis;
  readonly replica: LocalRedis;
  readonly sentinelPort: number;
  readonly sentinelPassword: string;
  /** How a role reaches the primary through the Sentinel: REDIS_SENTINELS and friends. */
  target(role: RedisRole): Extract<RedisTarget, { kind: "sentinel" }>;
  /** The port the Sentinel names as the primary now. */
  primaryPort(): Promise<number>;
  /** Runs one redis-cli command against the Sentinel (e.g. `SENTINEL FAILOVER`) and returns the reply. */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startRedisSentinelSet(dir: string): Promise<RedisSentinelSet> {
  mkdirSync(join(dir, "primary"), { recursive: true });
  const primary = await startLocalRedis({ acl: true, dataDir: join(dir, "primary") });
  const replica = await startLocalRedis({ replicaOf: primary });
  const roles = primary.roles;
  if (roles === null) throw new Error("the primary started without ACL users");
  await waitForRedis(async () => (await replica.command("INFO", "replication")).includes("master_link_status:up"), "the replica to sync");
  const sentinelPort = await freePort();
  const sentinelPassword = randomBytes(18).toString("hex");
  // Sentinel rewrites its configuration file: it gets a file of its own.
  const config = join(dir, "sentinel.conf");
  writeFileSync(
    config,
    [
      `port ${sentinelPort}`,
      "bind 127.0.0.1",
      `requirepass ${sentinelPassword}`,
      `sentinel monitor ${PRIMARY_NAME} 127.0.0.1 ${primary.port} 1`,
      `sentinel auth-user ${PRIMARY_NAME} ${REDIS_USERS.admin}`,
      `sentinel auth-pass ${PRIMARY_NAME} ${roles.admin.password}`,
      `sentinel down-after-milliseconds ${PRIMARY_NAME} 1000`,
      `sentinel failover-timeout ${PRIMARY_NAME} 10000`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const sentinel: ChildProcess = spawn("redis-server", [config, "--sentinel"], { stdio: "ignore" });
  const ask = async (...args: string[]): Promise<string> =>
    (
      await promisify(execFile)("redis-cli", ["-h", "127.0.0.1", "-p", String(sentinelPort), ...args], {
        env: { ...process.env, REDISCLI_AUTH: sentinelPassword },
      })
    ).stdout.trim();
  const primaryPort = async (): Promise<number> => Number((await ask("SENTINEL", "get-master-addr-by-name", PRIMARY_NAME)).split("\n")[1]);
  // Ready once the replica is one the Sentinel would promote. Finding it through the primary's INFO
  // is not enough: until the Sentinel's own link to the replica is up and has read its INFO, a
  // failover is refused NOGOODSLAVE (sentinelSelectSlave in Redis's sentinel.c).
  await waitForRedis(async () => {
    const fields = sentinelReplica(await ask("SENTINEL", "replicas", PRIMARY_NAME).catch(() => ""), replica.port);
    return fields?.get("flags") === "slave" && fields.get("master-link-status") === "ok" && Number(fields.get("info-refresh")) < 30_000;
  }, "the Sentinel to find the replica promotable");
  return {
    primary,
    replica,
    sentinelPort,
    sentinelPassword,
    target: (role) => ({
      kind: "sentinel",
      sentinels: [{ host: "127.0.0.1", port: sentinelPort }],
      name: PRIMARY_NAME,
      username: REDIS_USERS[role],
      password: roles[role].password,
      sentinelPassword,
    }),
    primaryPort,
    command: ask,
    stop: async () => {
      if (sentinel.exitCode === null && sentinel.signalCode === null) {
        sentinel.kill("SIGKILL");
        await once(sentinel, "exit");
      }
      await replica.stop();
      await primary.stop();
    },
  };
}

/**
 * The fields of one replica in `SENTINEL replicas` as redis-cli prints it when not on a terminal:
 * each replica's field names and values alternate, one per line, and each replica opens with `name`.
 */
function sentinelReplica(reply: string, port: number): Map<string, string> | undefined {
  const lines = reply.split("\n");
  let fields: Map<string, string> | undefined;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const [key = "", value = ""] = [lines[i], lines[i + 1]];
    if (key === "name") {
      if (fields?.get("port") === String(port)) return fields;
      fields = new Map();
    }
    fields?.set(key, value);
  }
  return fields?.get("port") === String(port) ? fields : undefined;
}
