import type { Server } from "node:http";
import type { Queue, Worker } from "bullmq";
import { createCloser } from "@reviewbot/core/create-closer";
import type { Logger } from "@reviewbot/core/logger";
import { stopServer } from "./listen.js";
import { quitRedis, type ApiRedis } from "./open-redis.js";

/** What a running api has to close, each part once. */
export interface RunningApi {
  readonly server: Server;
  readonly sweeper: { close(): void };
  readonly redelivery: { close(): Promise<void> } | null;
  readonly publisher: Worker;
  readonly queues: { readonly reviews: Queue; readonly github: Queue };
  readonly redis: ApiRedis;
}

/**
 * On SIGTERM or SIGINT, closes the api in order and exits 0: stop accepting requests and finish
 * those in flight, then the sweeper, the publisher (its running task), the queues, and last the
 * connections they all use. Every step runs even when one fails (createCloser).
 */
export function wireSignals(api: RunningApi, logger: Logger): void {
  const close = createCloser(
    [
      ["http", () => stopServer(api.server)],
      [
        "sweeper",
        () => {
          api.sweeper.close();
          return Promise.resolve();
        },
      ],
      ["redelivery sweep", () => api.redelivery?.close() ?? Promise.resolve()],
      ["publisher", () => api.publisher.close()],
      ["reviews queue", () => api.queues.reviews.close()],
      ["github queue", () => api.queues.github.close()],
      ["redis", () => quitRedis(api.redis.api)],
      ["redis (publisher)", () => quitRedis(api.redis.publisher)],
    ],
    logger,
  );
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, "api stopping");
    void close().then(() => {
      logger.info("api stopped");
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
