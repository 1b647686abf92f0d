import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import { createRedisConnection, redisConnectionName } from "@reviewbot/queue/redis-connection";
import type { ApiConfig } from "../api-config.js";

/** The api's two Redis connections. */
export interface ApiRedis {
  /** Fail-fast (non-blocking): requests, queues, ledger, broker keys, readiness. */
  readonly api: RedisClient;
  /** May block (`maxRetriesPerRequest: null`): only the publisher's BullMQ worker. */
  readonly publisher: RedisClient;
}

/** Opens both connections as the `reviewbot-api` user; a connection error is logged, never thrown. */
export function openRedis(config: ApiConfig, logger: Logger): ApiRedis {
  const open = (name: string, blocking: boolean): RedisClient => {
    const connection = createRedisConnection(config.redis, { name, blocking });
    connection.on("error", (err) => {
      logger.warn({ err, connection: redisConnectionName(name) }, "redis connection error");
    });
    return connection;
  };
  return { api: open("api", false), publisher: open("publisher", true) };
}

/** QUIT, which waits for replies in flight; a Redis that is gone cannot answer, so disconnect after 1 s. */
export async function quitRedis(connection: RedisClient): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 1000);
  });
  await Promise.race([connection.quit().catch(() => undefined), gone]);
  clearTimeout(timer);
  connection.disconnect();
}
