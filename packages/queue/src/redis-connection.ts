import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { RedisClient } from "./redis-client.js";
import type { RedisTarget } from "./redis-target.js";

export interface RedisConnectionOptions {
  /** Shown in `CLIENT LIST`, so operators can tell api, worker and publisher connections apart. */
  readonly name: string;
  /**
   * Connections that BullMQ workers block on must retry forever (`maxRetriesPerRequest: null`);
   * request-path connections fail fast instead, so a webhook gets a 503 rather than hanging.
   */
  readonly blocking: boolean;
  /**
   * With a URL: the password of its ACL user (REDIS_PASSWORD, from a file), so that it never sits
   * in a URL or an environment variable other processes can read. A password in the URL still works.
   */
  readonly password?: string | undefined;
}

/**
 * One ioredis connection configured the way BullMQ and our request paths each need it, to the
 * server a URL names, to the primary the Sentinels name, or to a Cluster. Behind Sentinels, ioredis
 * asks them for the primary on every (re)connection and listens for their `+switch-master`, so a
 * failover is followed without a restart; a command that meets a demoted primary (READONLY)
 * reconnects and is sent again, to the new one (a fallback for a connection that missed
 * `+switch-master`; no test provokes it: test/queue/sentinel-demotion.test.ts passes without it).
 * A Cluster connection follows MOVED and ASK redirections and re-reads the slots after a failover
 * (CLUSTERDOWN and TRYAGAIN are retried).
 */
/** The name a connection made for `name` gives Redis (`CLIENT SETNAME`), for its logs too. */
export function redisConnectionName(name: string): string {
  return `reviewbot-${name}`;
}

export function createRedisConnection(target: string, options: RedisConnectionOptions): Redis;
export function createRedisConnection(target: RedisTarget | string, options: RedisConnectionOptions): RedisClient;
export function createRedisConnection(target: RedisTarget | string, options: RedisConnectionOptions): RedisClient {
  const common: RedisOptions = {
    connectionName: redisConnectionName(options.name),
    maxRetriesPerRequest: options.blocking ? null : 1,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  };
  const resolved: RedisTarget = typeof target === "string" ? { kind: "url", url: target, password: options.password } : target;
  if (resolved.kind === "url") return new Redis(withPassword(resolved.url, resolved.password), common);
  if (resolved.kind === "cluster") {
    const { maxRetriesPerRequest, enableOfflineQueue, retryStrategy, ...perNode } = common;
    return new Cluster(
      resolved.nodes.map(({ host, port }) => ({ host, port })),
      {
        redisOptions: {
          ...perNode,
          maxRetriesPerRequest,
          ...(resolved.username === undefined ? {} : { username: resolved.username }),
          ...(resolved.password === undefined ? {} : { password: resolved.password }),
        },
        enableOfflineQueue,
        clusterRetryStrategy: retryStrategy,
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
      },
    );
  }
  return new Redis({
    ...common,
    sentinels: resolved.sentinels.map(({ host, port }) => ({ host, port })),
    name: resolved.name,
    role: "master",
    ...(resolved.username === undefined ? {} : { username: resolved.username }),
    ...(resolved.password === undefined ? {} : { password: resolved.password }),
    ...(resolved.sentinelPassword === undefined ? {} : { sentinelPassword: resolved.sentinelPassword }),
    failoverDetector: true,
    // Only behind Sentinels does a reconnection find another server: a URL naming a replica would
    // reconnect and resend forever.
    reconnectOnError: (err) => (err.message.startsWith("READONLY") ? 2 : false),
    sentinelRetryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

// ioredis lets the URL's (empty) password win over a `password` option: the password goes in the URL.
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
