import { Redis } from "ioredis";

export interface RedisConnectionOptions {
  /** Shown in `CLIENT LIST`, so operators can tell api, worker and publisher connections apart. */
  readonly name: string;
  /**
   * Connections that BullMQ workers block on must retry forever (`maxRetriesPerRequest: null`);
   * request-path connections fail fast instead, so a webhook gets a 503 rather than hanging.
   */
  readonly blocking: boolean;
}

/** One ioredis connection configured the way BullMQ and our request paths each need it. */
export function createRedisConnection(url: string, options: RedisConnectionOptions): Redis {
  return new Redis(url, {
    connectionName: `reviewbot-${options.name}`,
    maxRetriesPerRequest: options.blocking ? null : 1,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
}
