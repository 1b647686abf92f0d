import { Redis } from "ioredis";
import { z } from "zod";

/** REDIS_URL and REDIS_PASSWORD as every app reads them; spread into an app's config schema. */
export const REDIS_ENV_FIELDS = {
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL"),
  // The password of the URL's ACL user (one per role, infra/redis/users.acl.template); use REDIS_PASSWORD_FILE.
  REDIS_PASSWORD: z.string().min(1).optional(),
};

export interface RedisConnectionOptions {
  /** Shown in `CLIENT LIST`, so operators can tell api, worker and publisher connections apart. */
  readonly name: string;
  /**
   * Connections that BullMQ workers block on must retry forever (`maxRetriesPerRequest: null`);
   * request-path connections fail fast instead, so a webhook gets a 503 rather than hanging.
   */
  readonly blocking: boolean;
  /**
   * The password of the URL's ACL user (REDIS_PASSWORD, from a file), so that it never sits in a
   * URL or an environment variable other processes can read. A password in the URL still works.
   */
  readonly password?: string | undefined;
}

/** One ioredis connection configured the way BullMQ and our request paths each need it. */
export function createRedisConnection(url: string, options: RedisConnectionOptions): Redis {
  return new Redis(withPassword(url, options.password), {
    connectionName: `reviewbot-${options.name}`,
    maxRetriesPerRequest: options.blocking ? null : 1,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
}

// ioredis lets the URL's (empty) password win over a `password` option: the password goes in the URL.
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
