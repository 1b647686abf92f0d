import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { startApp, type AppProcess } from "../support/app-process.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { exportedNames, queriedNames } from "../support/metric-names.js";
import { startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { sendWebhook } from "../support/webhook-client.js";
import { openWorkerStand, type WorkerStand } from "../support/worker-fixture.js";
import { deliveryId, pullRequestPayload } from "../api/webhook-payloads.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SECRET = "prometheus-fleet-secret";
/** Prometheus's own series, not the apps'. */
const PROMETHEUS_OWN = new Set(["up"]);
interface RuleGroups {
  readonly groups: readonly { readonly rules: readonly { readonly name: string; readonly query: string }[] }[];
}
interface Alerts {
  readonly alerts: readonly { readonly labels: Readonly<Record<string, string>>; readonly state: string }[];
}
interface Dashboard {
  readonly panels: readonly { readonly title: string; readonly targets: readonly { readonly expr: string }[] }[];
}

let redis: LocalRedis;
let api: AppProcess;
let apiPort: number;
let stand: WorkerStand;
let workerPort: number;
let prometheus: PrometheusServer;
let dir: string;

/** What beforeAll started, stopped in reverse by afterAll (whatever step failed). */
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dir = await reachableTempDir("prometheus-fleet");
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  redis = await startLocalRedis();
  cleanups.push(() => redis.stop());
  api = startApp("api", "api", {
    REDIS_URL: redis.url,
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    REVIEWBOT_SINK: "local",
    REVIEWBOT_LOCAL_SINK_DIR: join(dir, "sink"),
  });
  cleanups.push(() => api.stop());
  apiPort = (JSON.parse(await api.waitForLog(/"api listening"/)) as { port: number }).port;
  stand = await openWorkerStand("prometheus-fleet");
  cleanups.push(() => stand.close());
  workerPort = (await stand.start()).port;
  // The real rules, each `for:` cut to nothing so that the test takes seconds, not minutes.
  const rules = (await readFile(join(ROOT, "infra", "prometheus", "alerts.yml"), "utf8")).replace(/^(\s+)for: \S+$/gm, "$1for: 0s");
  prometheus = await startPrometheus(join(dir, "prometheus"), {
    interval: "1s",
    rules,
    jobs: { "reviewbot-api": [`127.0.0.1:${apiPort}`], "reviewbot-worker": [`127.0.0.1:${workerPort}`] },
  });
  cleanups.push(() => prometheus.stop());
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** Names a query reads that neither app exports (Prometheus's own and the pending ones aside). */
function unknownNames(exprs: readonly string[], exported: ReadonlySet<string>): string[] {
  const unknown = new Set<string>();
  for (const expr of exprs) {
    const names = queriedNames(expr);
    expect(names.size, `no metric name found in ${expr}`).toBeGreaterThan(0);
    for (const name of names) if (!exported.has(name) && !PROMETHEUS_OWN.has(name)) unknown.add(name);
  }
  return [...unknown].sort();
}

async function alertsNamed(name: string): Promise<Alerts["alerts"]> {
  return (await prometheus.api<Alerts>("alerts")).alerts.filter((alert) => alert.labels.alertname === name);
}

describe("alerts and the dashboard against the real api, a real worker and a real Prometheus", () => {
  it("every metric each alert rule (as Prometheus parsed it) and each dashboard query names is exported by the api or the worker", async () => {
    const exported = new Set([...exportedNames(await scrape(apiPort)), ...exportedNames(await scrape(workerPort))]);
    const rules = (await prometheus.api<RuleGroups>("rules")).groups.flatMap((group) => group.rules);
    expect(rules).toHaveLength(11);
    const dashboard = JSON.parse(await readFile(join(ROOT, "infra", "grafana", "reviewbot.json"), "utf8")) as Dashboard;
    const panelExprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    expect(panelExprs.length).toBeGreaterThanOrEqual(12);
    expect(
      unknownNames(
        rules.map((rule) => rule.query),
        exported,
      ),
    ).toEqual([]);
    expect(unknownNames(panelExprs, exported)).toEqual([]);
    // Negative control: the same check names a metric no app exports, in a rule's shape.
    expect(unknownNames(['sum by (le, installation) (rate(reviewbot_no_such_metric_total{kind="x"}[5m])) / on (instance) up'], exported)).toEqual([
      "reviewbot_no_such_metric_total",
    ]);
  });

  it("scrapes both apps: the worker's engine and Redis are ready, and a healthy fleet raises no alert", async () => {
    await expect
      .poll(async () => (await prometheus.api<{ result: unknown[] }>('query?query=up{job=~"reviewbot-.*"}==1')).result.length, { timeout: 15_000 })
      .toBe(2);
    const ready = await prometheus.api<{ result: { value: [number, string] }[] }>("query?query=reviewbot_sandbox_engine_ready");
    expect(ready.result.map((sample) => sample.value[1])).toEqual(["1"]);
    await sleep(3000);
    expect((await prometheus.api<Alerts>("alerts")).alerts).toEqual([]);
  });

  it("ReviewbotWebhookRefusalsRising fires on badly signed deliveries (and not on good ones)", async () => {
    const hook = `http://127.0.0.1:${apiPort}/api/github/webhooks`;
    for (let n = 1; n <= 5; n++) {
      const good = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: n }), secret: SECRET });
      expect(good.status).toBe(202);
    }
    await sleep(3000);
    expect(await alertsNamed("ReviewbotWebhookRefusalsRising")).toEqual([]);
    // Past the rule's 0.1/s over 5 minutes (30), spread over a few scrapes: a counter series that
    // first appears already holding the whole burst has no increase for rate() to see.
    for (let n = 0; n < 45; n++) {
      await sleep(100);
      const forged = await sendWebhook(hook, {
        event: "pull_request",
        deliveryId: deliveryId(),
        body: pullRequestPayload({ number: 99 }),
        secret: "not-the-secret",
      });
      expect(forged.status).toBe(401);
    }
    await expect
      .poll(async () => (await alertsNamed("ReviewbotWebhookRefusalsRising")).map((alert) => [alert.state, alert.labels.reason]), {
        timeout: 20_000,
        interval: 500,
      })
      .toEqual([["firing", "WEBHOOK_SIGNATURE_INVALID"]]);
    // The dashboard's webhook latency saw each answer once, by status class.
    const text = await scrape(apiPort);
    expect(text).toContain('reviewbot_webhook_duration_seconds_count{status="2xx"} 5');
    expect(text).toContain('reviewbot_webhook_duration_seconds_count{status="4xx"} 45');
  });

  it("counts a review's age per installation only for jobs the api sealed: a forged queue entry adds no label", async () => {
    // A worker can write to the review queue (its ACL user must, to move jobs): here, straight to Redis.
    const queue = new Queue(REVIEW_QUEUE, { connection: { host: "127.0.0.1", port: redis.port } });
    await queue.add(
      "review",
      { installationId: 666, repository: "evil/repo", pullNumber: 1, mac: "0".repeat(64), sealedAt: Date.now() - 3_600_000 },
      { jobId: "forged-1" },
    );
    await queue.close();
    const text = await scrape(apiPort);
    // The deliveries of the test above, sealed by the api, waiting (no worker reads this Redis).
    expect(text).toMatch(/reviewbot_review_oldest_waiting_seconds\{installation="7"\} \d/);
    expect(text).not.toContain('installation="666"');
    expect(text).toMatch(/reviewbot_queue_jobs\{queue="reviews",state="waiting"\} 1\n/);
  });
});
