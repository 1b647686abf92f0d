import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, pullRequestPayload } from "./webhook-payloads.js";

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ enqueueDeadlineMs: 1000 });
});
afterAll(async () => {
  await api.close();
});

describe("metrics, health and readiness", () => {
  it("exposes webhook outcomes, queue depth and oldest-job age per queue, and process metrics", async () => {
    const hook = `${api.url}/api/github/webhooks`;
    await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 1 }), secret: SECRET });
    await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 2, draft: true }), secret: SECRET });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain('reviewbot_webhook_deliveries_total{event="pull_request",outcome="accepted",reason=""} 1');
    expect(text).toContain('reviewbot_webhook_deliveries_total{event="pull_request",outcome="ignored",reason="draft"} 1');
    expect(text).toMatch(/reviewbot_queue_jobs\{queue="reviews",state="prioritized"\} 1/);
    expect(text).toMatch(/reviewbot_queue_jobs\{queue="github",state="waiting"\} 0/);
    const age = /reviewbot_queue_oldest_waiting_seconds\{queue="reviews"\} ([\d.]+)/.exec(text);
    expect(Number(age?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).toContain("# TYPE reviewbot_publisher_tasks_total counter");
    expect(text).toContain("# TYPE reviewbot_github_requests_total counter");
  });

  it("is healthy and ready while Redis answers", async () => {
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
  });

  it("is not ready, and refuses deliveries with 503 QUEUE_UNAVAILABLE, when Redis is down", async () => {
    await api.redisServer?.stop();
    const started = Date.now();
    const ready = await fetch(`${api.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    const res = await sendWebhook(`${api.url}/api/github/webhooks`, {
      event: "pull_request",
      deliveryId: deliveryId(),
      body: pullRequestPayload({ number: 3 }),
      secret: SECRET,
    });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "QUEUE_UNAVAILABLE" } });
    expect(api.logs.filter((line) => line.msg === "webhook refused" && line.code === "QUEUE_UNAVAILABLE")).toHaveLength(1);
    const metrics = await fetch(`${api.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/outcome="rejected",reason="QUEUE_UNAVAILABLE"\} 1/);
  });
});
