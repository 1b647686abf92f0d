import { Gauge, type Registry } from "prom-client";
import type { HealthChecks } from "./health-server.js";

/**
 * `/readyz`'s two checks as gauges read on scrape, so that an alert can name the worker:
 * `reviewbot_redis_up` (Redis answers PING) and `reviewbot_sandbox_engine_ready` (the engine was
 * prepared and still answers its health check). A check that throws counts as not ready.
 */
export function registerReadinessMetrics(registry: Registry, checks: HealthChecks): void {
  const gauge = (name: string, help: string, check: () => Promise<boolean>): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set((await check().catch(() => false)) ? 1 : 0);
      },
    });
  };
  gauge("reviewbot_redis_up", "1 when Redis answers this worker's PING, else 0; read on scrape.", () => checks.redisReady());
  gauge(
    "reviewbot_sandbox_engine_ready",
    "1 when this worker's sandbox engine is prepared and healthy, else 0; read on scrape.",
    async () => (await checks.sandbox()).healthy,
  );
}
