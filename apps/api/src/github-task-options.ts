import type { DefaultJobOptions } from "bullmq";

/**
 * Publisher tasks call GitHub, whose failures (5xx, secondary rate limits) pass within minutes:
 * more attempts than a review, exponential from 2 s (2, 4, 8, … 256 s; about 8.5 minutes in all).
 * Finished tasks are kept briefly: the delivery ledger, not the job, prevents replays.
 */
export const GITHUB_TASK_OPTIONS: DefaultJobOptions = Object.freeze({
  attempts: 8,
  backoff: { type: "exponential", delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 5000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 5000 },
});

/** One resolve task per delivery, like reviews (BullMQ ids must not contain `:`). */
export function resolveTaskId(deliveryId: string): string {
  return `resolve.${deliveryId}`;
}
