import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerReadinessMetrics } from "./readiness-metrics.js";

async function scrape(redis: () => Promise<boolean>, healthy: () => Promise<boolean>): Promise<string> {
  const registry = new Registry();
  registerReadinessMetrics(registry, {
    redisReady: redis,
    sandbox: async () => ((await healthy()) ? { healthy: true } : { healthy: false, reason: "probe failed" }),
  });
  return registry.metrics();
}

describe("readiness gauges", () => {
  it("read 1 for each check that passes, on every scrape", async () => {
    const text = await scrape(
      () => Promise.resolve(true),
      () => Promise.resolve(true),
    );
    expect(text).toContain("reviewbot_redis_up 1");
    expect(text).toContain("reviewbot_sandbox_engine_ready 1");
  });

  it("read 0 for a check that fails or throws (an unreachable Redis rejects its PING)", async () => {
    const text = await scrape(
      () => Promise.reject(new Error("connection refused")),
      () => Promise.resolve(false),
    );
    expect(text).toContain("reviewbot_redis_up 0");
    expect(text).toContain("reviewbot_sandbox_engine_ready 0");
  });
});
