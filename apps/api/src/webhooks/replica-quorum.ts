import { type RedisClient, serverHolding } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { Redis } from "ioredis";
import { AppError } from "@reviewbot/core/errors";

/** Confirms that what this connection wrote so far is on enough replicas, or throws QUEUE_UNAVAILABLE. */
export interface ReplicaQuorum {
  confirm(): Promise<void>;
}

export interface ReplicaQuorumOptions {
  /** Replicas that must hold a delivery before it is answered 202; null: as many as are connected, at most 1. */
  readonly minReplicas: number | null;
  /** WAIT's bound in milliseconds: past it the delivery is answered 503. */
  readonly waitMs: number;
  /** How long a count of connected replicas (INFO replication) is reused. */
  readonly refreshMs?: number;
}

const CONNECTED = /^connected_slaves:(\d+)\r?$/m;

/**
 * `WAIT <n> <waitMs>` on the api's own connection after a delivery's ledger record and job are
 * written (issue 25, part 3a): WAIT counts the writes of the connection it runs on, so it must be
 * the one the ledger and the queues use. Without a set count, `n` is the replicas the primary has
 * connected (INFO replication, re-read at most every `refreshMs`), capped at 1: a primary without
 * replicas answers at once, as before. In a Cluster both go to the primary holding the keyspace's
 * slot (every key of ours and BullMQ's shares its hash tag), on the connection that wrote there.
 */
export function createReplicaQuorum(redis: RedisClient, keys: RedisKeyspace, options: ReplicaQuorumOptions): ReplicaQuorum {
  const refreshMs = options.refreshMs ?? 1000;
  let known: { count: number; at: number } | null = null;
  const server = (): Redis => {
    const holding = serverHolding(redis, keys.ours);
    if (holding === undefined) throw new AppError("QUEUE_UNAVAILABLE", "the Redis Cluster's slots are not known yet");
    return holding;
  };
  const needed = async (): Promise<number> => {
    if (options.minReplicas !== null) return options.minReplicas;
    if (known === null || Date.now() - known.at > refreshMs) {
      const info = await server().info("replication");
      known = { count: Math.min(1, Number(CONNECTED.exec(info)?.[1] ?? "0")), at: Date.now() };
    }
    return known.count;
  };
  return {
    confirm: async () => {
      const replicas = await needed();
      if (replicas === 0) return;
      const acknowledged = await server().wait(replicas, options.waitMs);
      if (acknowledged < replicas) {
        throw new AppError("QUEUE_UNAVAILABLE", "Redis's replicas did not confirm the delivery in time", {
          details: { replicas, acknowledged, waitMs: options.waitMs },
        });
      }
    },
  };
}
