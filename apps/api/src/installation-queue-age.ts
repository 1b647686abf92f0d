import type { Queue } from "bullmq";
import { Gauge, type Registry } from "prom-client";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { openReviewJob } from "@reviewbot/queue/queued-review-job";
import { withDeadline } from "./http-kit/with-deadline.js";

// As in api-metrics.ts: the oldest waiting jobs are found among this many, read on each scrape.
const SAMPLE = 200;
const SCRAPE_DEADLINE_MS = 2000;

/**
 * `reviewbot_review_oldest_waiting_seconds{installation}`: the age of each installation's oldest
 * review waiting to run. Workers can write to the review queue, so only entries carrying the
 * api's seal are counted: a forged entry can neither raise an alert nor add a label.
 */
export function registerInstallationQueueAge(registry: Registry, reviews: Queue, seal: QueueSeal): void {
  new Gauge({
    name: "reviewbot_review_oldest_waiting_seconds",
    help: "Age of each installation's oldest review waiting to run (sealed jobs only), read on scrape.",
    labelNames: ["installation"],
    registers: [registry],
    async collect() {
      this.reset();
      const jobs = await withDeadline(
        reviews.getJobs(["wait", "prioritized"], 0, SAMPLE - 1, true),
        SCRAPE_DEADLINE_MS,
        "QUEUE_UNAVAILABLE",
        "oldest review",
      ).catch(() => []);
      const oldest = new Map<number, number>();
      for (const entry of jobs) {
        const installationId = sealedInstallation(seal, entry.id, entry.data);
        if (installationId === null) continue;
        oldest.set(installationId, Math.min(oldest.get(installationId) ?? Infinity, entry.timestamp));
      }
      const now = Date.now();
      for (const [installationId, timestamp] of oldest) this.set({ installation: String(installationId) }, Math.max(0, (now - timestamp) / 1000));
    },
  });
}

function sealedInstallation(seal: QueueSeal, jobId: string | undefined, data: unknown): number | null {
  if (jobId === undefined) return null;
  try {
    return openReviewJob(seal, jobId, data).job.installationId;
  } catch {
    return null;
  }
}
