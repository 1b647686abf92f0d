import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { redisUrlFor, renderRedisAcl, type RedisRole } from "@reviewbot/queue/redis-acl";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { RedisTarget } from "@reviewbot/queue/redis-target";
import { startChildService, type ChildService } from "./child-service.js";
import { freePort } from "./free-port.js";
import { DEFAULT_PATH, inheritedEnv } from "@reviewbot/core/inherited-env";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface PrivateRedis {
  /** Each role's login (api, worker, admin), as the ACL template defines the roles: the URL names the user, the password travels apart. */
  readonly roles: Readonly<Record<RedisRole, RedisTarget>>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * A redis-server of the fleet's own on 127.0.0.1 and a free port, with its data (append-only
 * file, as BullMQ's docs ask for a queue) in a directory of its own under `dir`, and the
 * project's ACL users (`aclTemplate`, infra/redis/users.acl.template) with fresh random passwords:
 * the embedded fleet runs with the same per-role Redis users as production, under the fleet's
 * keyspace (`keys`).
 */
export async function startPrivateRedis(dir: string, aclTemplate: string, keys: RedisKeyspace): Promise<PrivateRedis> {
  const port = await freePort();
  const dataDir = join(dir, `redis-${process.pid}-${port}`);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const base = `redis://127.0.0.1:${port}`;
  const passwords: Record<RedisRole, string> = { api: secret(), worker: secret(), admin: secret() };
  const login = (role: RedisRole): RedisTarget => ({ kind: "url", url: redisUrlFor(base, role), password: passwords[role] });
  const roles = { api: login("api"), worker: login("worker"), admin: login("admin") };
  const aclFile = join(dataDir, "users.acl");
  await writeFile(aclFile, renderRedisAcl(aclTemplate, passwords, keys), { mode: 0o600 });
  const server = startChildService(
    "redis",
    [
      "redis-server",
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dataDir,
      "--appendonly",
      "yes",
      "--save",
      "",
      "--protected-mode",
      "yes",
      "--aclfile",
      aclFile,
    ],
    inheritedEnv({ PATH: DEFAULT_PATH }),
    join(dataDir, "redis.log"),
  );
  const stop = async (): Promise<void> => {
    await server.stop(5000);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForPing(roles.admin, server);
  } catch (err) {
    await stop();
    throw err;
  }
  return { roles, stop };
}

function secret(): string {
  return randomBytes(24).toString("base64url");
}

async function waitForPing(admin: RedisTarget, server: ChildService): Promise<void> {
  const connection = createRedisConnection(admin, { name: "cli-fleet-probe", blocking: false });
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
