import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import type { ResolveTask } from "@reviewbot/queue/github-task";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { ReviewJob } from "@reviewbot/queue/review-job";
import { hasDelivery, recordDelivery } from "./delivery-ledger.js";
import { withDeadline } from "./with-deadline.js";

export interface DeliveryQueues {
  readonly reviews: Queue;
  readonly github: Queue;
  /** A fail-fast (non-blocking) connection for the ledger and the PR state. */
  readonly redis: Redis;
}

export type Accepted =
  | { readonly status: "accepted"; readonly jobId: string; readonly removed: string | null; readonly cancelled: string | null }
  | { readonly status: "duplicate"; readonly jobId: string | null };

type Work = { readonly kind: "review"; readonly job: ReviewJob } | { readonly kind: "resolve"; readonly task: ResolveTask };

/**
 * Accepts a delivery exactly once: a delivery in the ledger is a duplicate; otherwise it is
 * enqueued first (its job id comes from the delivery id, so concurrent copies are one job) and
 * recorded second. Everything is Redis, bounded by `deadlineMs`: past it (or on a Redis error)
 * QUEUE_UNAVAILABLE, and the delivery counts as not accepted, so GitHub can redeliver it.
 */
export async function acceptDelivery(queues: DeliveryQueues, work: Work, deadlineMs: number): Promise<Accepted> {
  const deliveryId = work.kind === "review" ? work.job.deliveryId : work.task.deliveryId;
  return withDeadline(accept(queues, work, deliveryId), deadlineMs, "QUEUE_UNAVAILABLE", "Redis did not confirm the delivery in time");
}

async function accept(queues: DeliveryQueues, work: Work, deliveryId: string): Promise<Accepted> {
  if (await hasDelivery(queues.redis, deliveryId)) return { status: "duplicate", jobId: null };
  const outcome =
    work.kind === "review"
      ? await enqueueReview(queues.reviews, queues.redis, work.job)
      : { jobId: await enqueueGitHubTask(queues.github, work.task), removed: null, cancelled: null };
  const first = await recordDelivery(queues.redis, deliveryId, outcome.jobId);
  return first ? { status: "accepted", ...outcome } : { status: "duplicate", jobId: outcome.jobId };
}
