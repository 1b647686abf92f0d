import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { dismissedKey } from "./dismissed-findings.js";

/** How many findings trusted people dismissed on the PR, for its summary (issue 23, part 3). */
export async function dismissedCount(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number): Promise<number> {
  return redis.zcard(dismissedKey(keys, repositoryId, pullNumber));
}
