import type { Redis } from "ioredis";
import type { Logger } from "@reviewbot/core/logger";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { ApiConfig } from "../api-config.js";

/** The api's two Redis connections. */
export interface ApiRedis {
  /** Fail-fast (non-blocking): requests, queues, ledger, broker keys, readiness. */
  readonly api: Redis;
  /** May block (`maxRetriesPerRequest: null`): only the publisher's BullMQ worker. */
  readonly publisher: Redis;
}

/** Opens both connections as the `reviewbot-api` user; a connection error is logged, never thrown. */
export function openRedis(config: ApiConfig, logger: Logger): ApiRedis {
  const api = createRedisConnection(config.redis, { name: "api", blocking: false });
  const publisher = createRedisConnection(config.redis, { name: "publisher", blocking: true });
  for (const connection of [api, publisher]) {
    connection.on("error", (err) => {
      logger.warn({ err, connection: connection.options.connectionName }, "redis connection error");
    });
  }
  return { api, publisher };
}

/** QUIT, which waits for replies in flight; a Redis that is gone cannot answer, so disconnect after 1 s. */
export async function quitRedis(connection: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 1000);
  });
  await Promise.race([connection.quit().catch(() => undefined), gone]);
  clearTimeout(timer);
  connection.disconnect();
}
