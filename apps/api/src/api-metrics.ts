import type { Queue } from "bullmq";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { withDeadline } from "./http-kit/with-deadline.js";

/** The API's Prometheus metrics, on a registry of its own (never prom-client's global one). */
export interface ApiMetrics {
  readonly registry: Registry;
  /** `outcome`: accepted | duplicate | dismissed | ignored | rejected | ping; `reason` says why (or ""). */
  readonly webhooks: Counter<"event" | "outcome" | "reason">;
  /** Webhook answer time by status class (webhooks/webhook-latency.ts). */
  readonly webhookSeconds: Histogram<"status">;
  readonly publisherTasks: Counter<"kind" | "outcome">;
  readonly githubRequests: Counter<"route" | "status">;
  readonly rateLimitWaits: Counter<"kind">;
  readonly rateLimitWaitSeconds: Counter<"kind">;
}

const STATES = ["waiting", "prioritized", "delayed", "active", "completed", "failed", "paused", "waiting-children"] as const;

// The oldest of the prioritized jobs is found among this many (they are ordered by priority, not
// age); enough for an alert on a stuck queue without reading thousands of jobs per scrape.
const AGE_SAMPLE = 200;
const SCRAPE_DEADLINE_MS = 2000;

/** Builds the registry; queue depth and the age of the oldest waiting job are read on each scrape. */
export function createApiMetrics(queues: readonly Queue[]): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "reviewbot_queue_jobs",
    help: "Jobs in each queue by state, read on scrape.",
    labelNames: ["queue", "state"],
    registers: [registry],
    async collect() {
      this.reset();
      // Redis down: the series go missing (an alert on absence fires) and the scrape still answers.
      const all = await Promise.all(
        queues.map((queue) => withDeadline(queue.getJobCounts(...STATES), SCRAPE_DEADLINE_MS, "QUEUE_UNAVAILABLE", "queue depth").catch(() => null)),
      );
      all.forEach((counts, index) => {
        const queue = queues[index]?.name ?? "";
        if (counts !== null) for (const state of STATES) this.set({ queue, state }, counts[state] ?? 0);
      });
    },
  });
  new Gauge({
    name: "reviewbot_queue_oldest_waiting_seconds",
    help: "Age of the oldest job waiting to run in each queue (0 when none), read on scrape.",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      this.reset();
      const all = await Promise.all(
        queues.map((queue) =>
          withDeadline(queue.getJobs(["wait", "prioritized"], 0, AGE_SAMPLE - 1, true), SCRAPE_DEADLINE_MS, "QUEUE_UNAVAILABLE", "oldest job").catch(
            () => null,
          ),
        ),
      );
      all.forEach((jobs, index) => {
        if (jobs === null) return;
        const oldest = Math.min(...jobs.map((job) => job.timestamp));
        this.set({ queue: queues[index]?.name ?? "" }, Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
      });
    },
  });
  return {
    registry,
    webhooks: new Counter({
      name: "reviewbot_webhook_deliveries_total",
      help: "Webhook deliveries by event and outcome; rejected and ignored ones carry the reason.",
      labelNames: ["event", "outcome", "reason"],
      registers: [registry],
    }),
    webhookSeconds: new Histogram({
      name: "reviewbot_webhook_duration_seconds",
      help: "Time to answer a webhook delivery, by status class (2xx, 4xx, 5xx, or closed before an answer).",
      labelNames: ["status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    publisherTasks: new Counter({
      name: "reviewbot_publisher_tasks_total",
      help: "Publisher tasks by kind and outcome (done, retry, failed).",
      labelNames: ["kind", "outcome"],
      registers: [registry],
    }),
    githubRequests: new Counter({
      name: "reviewbot_github_requests_total",
      help: "GitHub API requests by route template and HTTP status.",
      labelNames: ["route", "status"],
      registers: [registry],
    }),
    rateLimitWaits: new Counter({
      name: "reviewbot_github_rate_limit_waits_total",
      help: "Times a GitHub request waited for a primary or secondary rate limit.",
      labelNames: ["kind"],
      registers: [registry],
    }),
    rateLimitWaitSeconds: new Counter({
      name: "reviewbot_github_rate_limit_wait_seconds_total",
      help: "Seconds spent waiting for GitHub rate limits.",
      labelNames: ["kind"],
      registers: [registry],
    }),
  };
}
