import { setTimeout as sleep } from "node:timers/promises";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";

/**
 * Waits for this installation's content-creation slot, shared by every process through Redis:
 * GitHub asks integrators to leave at least a second between POST/PATCH/PUT/DELETE requests
 * ("best practices for using the REST API"), and its secondary rate limits punish bursts. The
 * slot is a key set with `NX` that expires after `paceMs`; a caller that loses waits for the key's
 * remaining lifetime and tries again. Returns how long it waited.
 */
export async function takePaceSlot(redis: RedisClient, keys: RedisKeyspace, installationId: number, paceMs: number): Promise<number> {
  if (paceMs <= 0) return 0;
  const key = `${keys.ours}:pace:${installationId}`;
  const started = Date.now();
  for (;;) {
    if ((await redis.set(key, "1", "PX", paceMs, "NX")) === "OK") return Date.now() - started;
    const remaining = await redis.pttl(key);
    // -2: it expired in between, try at once. -1: a key without expiry (not written by us): give
    // it one, so a stray key cannot stop every write of the installation for good.
    if (remaining === -2) continue;
    if (remaining === -1) await redis.pexpire(key, paceMs);
    await sleep(remaining > 0 ? remaining : paceMs);
  }
}
