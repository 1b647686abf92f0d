import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { REDIS_USERS, renderRedisAcl, type RedisRole } from "@reviewbot/queue/redis-acl";
import { DEFAULT_KEYSPACE, type RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

const ACL_TEMPLATE = readFileSync(new URL("../../infra/redis/users.acl.template", import.meta.url), "utf8");

/** How a role connects: `url` names the ACL user, `password` goes in REDIS_PASSWORD. */
export interface RedisRoleLogin {
  readonly url: string;
  readonly password: string;
}

export interface LocalRedis {
  readonly port: number;
  /** Full access: the admin user's URL (password included) with ACLs on, else the default user's. */
  readonly url: string;
  /** Per-role logins, when started with `acl`. */
  readonly roles: Readonly<Record<RedisRole, RedisRoleLogin>> | null;
  /** Runs one redis-cli command against it and returns the reply. */
  command(...args: string[]): Promise<string>;
  /** Stops the server (SIGKILL) and starts it again on the same port and data directory. */
  restart(downMs?: number): Promise<void>;
  /** SIGSTOP: its connections stay open but it answers nothing, until {@link resume} (SIGCONT). */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export interface LocalRedisOptions {
  /**
   * Keep data in this directory with an fsync-always append-only file, as production runs it
   * (AOF), so a restart loses nothing that was acknowledged. Without it the server is ephemeral.
   */
  readonly dataDir?: string;
  /** Start with the project's ACL users (infra/redis/users.acl.template) and random passwords; the default user is off. */
  readonly acl?: boolean;
  /** The keyspace the ACL users' key and channel patterns follow (REVIEWBOT_REDIS_PREFIX); default today's names. */
  readonly keys?: RedisKeyspace;
  /**
   * Start as a replica of this server, with its ACL users and passwords (replicas do not copy ACL
   * users: every node loads the same file), replicating as its admin.
   */
  readonly replicaOf?: LocalRedis;
  /**
   * Start as a Redis Cluster node (its bus on a port of its own, no slots yet: see
   * support/redis-cluster.ts), with `rolesOf`'s ACL users and passwords when given; it replicates,
   * once made a replica, as the admin.
   */
  readonly clusterNode?: { readonly rolesOf?: LocalRedis };
}

/**
 * redis-server's arguments for a throwaway server on 127.0.0.1:`port` that persists nothing, its
 * files (a replica's full sync still writes an RDB file, cluster mode its nodes.conf) in `dir`,
 * never the cwd.
 */
export function ephemeralRedisArgs(port: number, dir = mkdtempSync(join(tmpdir(), "reviewbot-redis-"))): string[] {
  return ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
}

/** A throwaway redis-server on 127.0.0.1: a service on the host's loopback. */
export async function startLocalRedis(options: LocalRedisOptions = {}): Promise<LocalRedis> {
  const port = await freePort();
  const serverArgs =
    options.dataDir === undefined
      ? ephemeralRedisArgs(port)
      : ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", options.dataDir];
  const primary = options.replicaOf;
  const same = primary ?? options.clusterNode?.rolesOf;
  const roles = same !== undefined ? (same.roles === null ? null : aclRoles(port, same.roles)) : options.acl === true ? aclRoles(port) : null;
  const aclArgs = roles === null ? [] : ["--aclfile", writeAclFile(roles, options.keys ?? DEFAULT_KEYSPACE)];
  const replicates = primary !== undefined || options.clusterNode !== undefined;
  const replicaArgs = [
    ...(primary === undefined ? [] : ["--replicaof", "127.0.0.1", String(primary.port)]),
    ...(roles === null || !replicates ? [] : ["--masteruser", REDIS_USERS.admin, "--masterauth", roles.admin.password]),
  ];
  // nodes.conf lands in the server's --dir.
  const clusterArgs =
    options.clusterNode === undefined
      ? []
      : ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port", String(await freePort()), "--cluster-node-timeout", "5000"];
  const args = [...serverArgs, "--maxmemory-policy", "noeviction", ...aclArgs, ...replicaArgs, ...clusterArgs];
  // The admin's password reaches redis-cli through its environment, not its argv.
  const auth = roles === null ? [] : ["--user", REDIS_USERS.admin];
  const env = roles === null ? process.env : { ...process.env, REDISCLI_AUTH: roles.admin.password };
  const command = async (...argv: string[]): Promise<string> =>
    (await promisify(execFile)("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...auth, ...argv], { env })).stdout.trim();
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
    url: roles === null ? `redis://127.0.0.1:${port}` : `redis://${REDIS_USERS.admin}:${roles.admin.password}@127.0.0.1:${port}`,
    roles,
    command,
    restart: async (downMs = 0) => {
      await kill(server);
      await sleep(downMs);
      server = await start();
    },
    pause: () => server.kill("SIGSTOP"),
    resume: () => server.kill("SIGCONT"),
    stop: () => kill(server),
  };
}

/** Each role's login on `port`: fresh passwords, or those of `same` (another node of one deployment). */
function aclRoles(port: number, same?: Readonly<Record<RedisRole, RedisRoleLogin>>): Record<RedisRole, RedisRoleLogin> {
  const login = (role: RedisRole): RedisRoleLogin => ({
    url: `redis://${REDIS_USERS[role]}@127.0.0.1:${port}`,
    password: same?.[role].password ?? randomBytes(24).toString("hex"),
  });
  return { api: login("api"), worker: login("worker"), admin: login("admin") };
}

function writeAclFile(roles: Record<RedisRole, RedisRoleLogin>, keys: RedisKeyspace): string {
  const file = join(mkdtempSync(join(tmpdir(), "reviewbot-acl-")), "users.acl");
  writeFileSync(file, renderRedisAcl(ACL_TEMPLATE, { api: roles.api.password, worker: roles.worker.password, admin: roles.admin.password }, keys), {
    mode: 0o600,
  });
  return file;
}

/** A TCP port free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

/** Polls `condition` (a throw counts as false) every 100 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitForRedis(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition().catch(() => false));) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
