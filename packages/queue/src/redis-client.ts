import calculateSlot from "cluster-key-slot";
import { Cluster, type Redis } from "ioredis";

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
