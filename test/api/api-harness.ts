import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { createApiApp, type ApiDeps } from "@reviewbot/api/create-api-app";
import { createApiMetrics, type ApiMetrics } from "@reviewbot/api/api-metrics";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { COMMAND_ASSOCIATIONS, PULL_REQUEST_ACTIONS } from "@reviewbot/api/decide-delivery";

export const SECRET = "test-webhook-secret-0123456789";
export const MAX_BYTES = 64 * 1024;

export interface ApiHarness {
  readonly url: string;
  readonly redisServer: LocalRedis;
  readonly redis: Redis;
  readonly reviews: Queue;
  readonly github: Queue;
  readonly metrics: ApiMetrics;
  readonly scrubber: SecretScrubber;
  /** Every log line the API wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export type HarnessOptions = Partial<Pick<ApiDeps, "tokenBroker" | "dashboard">> & {
  readonly enqueueDeadlineMs?: number;
  readonly botLogins?: readonly string[];
};

/** The real API app on a real port, with a throwaway redis-server and log lines captured. */
export async function startApi(options: HarnessOptions = {}): Promise<ApiHarness> {
  const redisServer = await startLocalRedis();
  const redis = createRedisConnection(redisServer.url, { name: "test-api", blocking: false });
  redis.on("error", () => undefined);
  const reviews = new Queue(REVIEW_QUEUE, { connection: redis });
  const github = new Queue(GITHUB_QUEUE, { connection: redis });
  const metrics = createApiMetrics([reviews, github]);
  const scrubber = new SecretScrubber();
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "debug",
    scrubber,
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const app = createApiApp({
    webhook: {
      secret: SECRET,
      maxBytes: MAX_BYTES,
      filter: {
        botLogins: options.botLogins ?? ["renovate-bot"],
        reviewCommand: "/review",
        checkRunName: "reviewbot",
        appId: 42,
        pullRequestActions: PULL_REQUEST_ACTIONS,
        commandAssociations: COMMAND_ASSOCIATIONS,
      },
      enqueueDeadlineMs: options.enqueueDeadlineMs ?? 3000,
    },
    queues: { reviews, github },
    redis,
    metrics,
    logger,
    scrubber,
    tokenBroker: options.tokenBroker ?? null,
    dashboard: options.dashboard ?? null,
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => {
      resolve(listening);
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    redisServer,
    redis,
    reviews,
    github,
    metrics,
    scrubber,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.allSettled([reviews.close(), github.close()]);
      redis.disconnect();
      await redisServer.stop();
    },
  };
}
