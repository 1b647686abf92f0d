import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import type { Registry } from "prom-client";
import type { ApiConfig } from "../api-config.js";
import { createRedeliveryMetrics } from "../redelivery/redelivery-metrics.js";
import { runRedeliverySweep } from "../redelivery/redelivery-sweep.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** A running sweep: `close` stops the timer and waits for a run in progress. */
export interface RunningRedeliverySweep {
  close(): Promise<void>;
}

/**
 * Runs the redelivery sweep at start and then every REVIEWBOT_REDELIVERY_INTERVAL_MS, one run at
 * a time (the next is timed from the end of the last); null when it is off (interval 0) or there
 * is no App to ask GitHub with (the local sink). A failed run is logged and the next one tries again.
 */
export function startRedeliverySweep(
  config: ApiConfig,
  parts: { readonly app: GitHubApp | null; readonly redis: RedisClient; readonly keys: RedisKeyspace; readonly registry: Registry; readonly logger: Logger },
): RunningRedeliverySweep | null {
  // Registered even when off, so /metrics names the same series on every api (0 when off).
  const metrics = createRedeliveryMetrics(parts.registry);
  const { app } = parts;
  if (app === null || config.REVIEWBOT_REDELIVERY_INTERVAL_MS === 0) return null;
  const deps = {
    app,
    redis: parts.redis,
    keys: parts.keys,
    metrics,
    logger: parts.logger.child({ part: "redelivery-sweep" }),
    lookbackMs: config.REVIEWBOT_REDELIVERY_LOOKBACK_MS,
    maxPerRun: config.REVIEWBOT_REDELIVERY_MAX_PER_RUN,
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = (): void => {
    running = runRedeliverySweep(deps).then(
      () => undefined,
      (err: unknown) => {
        deps.logger.warn({ err }, "redelivery sweep failed");
      },
    );
    void running.then(() => {
      if (!stopped) timer = setTimeout(run, config.REVIEWBOT_REDELIVERY_INTERVAL_MS);
    });
  };
  run();
  return {
    close: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
