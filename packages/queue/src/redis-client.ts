import calculateSlot from "cluster-key-slot";
import { Cluster, type Redis } from "ioredis";
import { settleWithin } from "@reviewbot/core/settle-within";

/**
 * A connection to the fleet's Redis: one server (named by a URL or by Sentinels) or a Cluster.
 * Both speak the same commands; a Cluster sends each to the node holding its keys' slot, so a
 * command or script whose keys share a hash tag runs where they all are.
 */
export type RedisClient = Redis | Cluster;

/**
 * The server connection that holds `key`, for the commands that name no key yet must reach that
 * server (WAIT counts the writes of the connection it runs on; INFO replication describes one
 * server). For a Cluster: the pooled connection to the primary of `key`'s slot, the very one the
 * Cluster sends that slot's commands on; undefined while the Cluster does not know its slots.
 */
export function serverHolding(client: RedisClient, key: string): Redis | undefined {
  if (!(client instanceof Cluster)) return client;
  const [primary] = client.slots[calculateSlot(key)] ?? [];
  return client.nodes("master").find(({ options }) => `${options.host ?? ""}:${options.port ?? ""}` === primary);
}

/**
 * Whether the server holding `key` answers PING within `deadlineMs`: readiness for a process whose
 * every key shares `key`'s slot. In a Cluster, another primary answering says nothing of ours (a
 * keyless PING goes to any of them), and a server that stopped answering (paused, its network
 * gone) would leave a PING pending until its connection drops.
 */
export async function holderAnswers(client: RedisClient, key: string, deadlineMs: number): Promise<boolean> {
  const holder = serverHolding(client, key);
  if (holder === undefined) return false;
  return settleWithin(
    holder.ping().then(
      () => true,
      () => false,
    ),
    deadlineMs,
    false,
  );
}
