import { Redis } from "ioredis";
import { REDIS_USERS, type RedisRole } from "@reviewbot/queue/redis-acl";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisTarget } from "@reviewbot/queue/redis-target";
import { startLocalRedis, type LocalRedis, waitForRedis } from "./local-redis.js";

/**
 * A Redis Cluster on 127.0.0.1 as docs/deployment.md describes it: three primaries that split the
 * 16,384 slots (`redis-cli --cluster create`), each loading the same ACL file (the project's users,
 * their patterns following `keys`), and optionally one replica of the primary that holds `keys`'
 * hash tag.
 */
export interface RedisClusterSet {
  readonly primaries: readonly LocalRedis[];
  /** The replica of {@link holder}, when started `withReplica`. */
  readonly replica: LocalRedis | null;
  /** The primary holding the slot of the keyspace's hash tag: every key of the fleet is there. */
  readonly holder: LocalRedis;
  /** How a role reaches the Cluster: REDIS_CLUSTER_NODES (one node named: the rest are learnt), its ACL user. */
  target(role: RedisRole): Extract<RedisTarget, { kind: "cluster" }>;
  stop(): Promise<void>;
}

export async function startRedisCluster(keys: RedisKeyspace, options: { withReplica?: boolean } = {}): Promise<RedisClusterSet> {
  const first = await startLocalRedis({ acl: true, keys, clusterNode: {} });
  const started = [first, ...(await Promise.all([1, 2].map(() => startLocalRedis({ keys, clusterNode: { rolesOf: first } }))))];
  const roles = first.roles;
  if (roles === null) throw new Error("the Cluster started without ACL users");
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((node) => node.stop()));
  };
  try {
    await first.command("--cluster", "create", ...started.map(({ port }) => `127.0.0.1:${port}`), "--cluster-yes");
    await waitForRedis(async () => (await Promise.all(started.map((node) => node.command("CLUSTER", "INFO")))).every(isOk), "the Cluster to be ok");
    const holder = await holderOf(first, keys.ours, started);
    let replica: LocalRedis | null = null;
    if (options.withReplica === true) {
      replica = await startLocalRedis({ keys, clusterNode: { rolesOf: first } });
      started.push(replica);
      const holderId = await holder.command("CLUSTER", "MYID");
      await first.command("--cluster", "add-node", `127.0.0.1:${replica.port}`, `127.0.0.1:${first.port}`, "--cluster-slave", "--cluster-master-id", holderId);
      const node = replica;
      await waitForRedis(async () => (await node.command("INFO", "replication")).includes("master_link_status:up"), "the replica to sync");
    }
    return {
      primaries: started.slice(0, 3),
      replica,
      holder,
      target: (role) => ({ kind: "cluster", nodes: [{ host: "127.0.0.1", port: first.port }], username: REDIS_USERS[role], password: roles[role].password }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function isOk(info: string): boolean {
  return info.includes("cluster_state:ok");
}

/** The primary whose slot range holds `key` (CLUSTER KEYSLOT, then CLUSTER SLOTS, asked of `node`). */
async function holderOf(node: LocalRedis, key: string, among: readonly LocalRedis[]): Promise<LocalRedis> {
  const client = new Redis(node.url, { maxRetriesPerRequest: 1 });
  try {
    const slot = Number(await client.call("CLUSTER", "KEYSLOT", key));
    const ranges = (await client.call("CLUSTER", "SLOTS")) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
    const range = ranges.find(([from, to]) => from <= slot && slot <= to);
    const holder = among.find(({ port }) => port === range?.[2][1]);
    if (holder === undefined) throw new Error(`no primary holds slot ${slot}`);
    return holder;
  } finally {
    client.disconnect();
  }
}
