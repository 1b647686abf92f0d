import type { DefaultJobOptions, Queue } from "bullmq";
import { GitHubTask } from "@reviewbot/contracts/github-task";
import type { QueueSeal } from "./queue-seal.js";

/**
 * Publisher tasks call GitHub, whose failures (5xx, secondary rate limits) pass within minutes:
 * more attempts than a review, exponential from 2 s (2, 4, 8, … 256 s; about 8.5 minutes in all).
 * Finished tasks are kept a day: while they exist, a re-enqueued task with the same id is a no-op.
 */
export const GITHUB_TASK_OPTIONS: DefaultJobOptions = Object.freeze({
  attempts: 8,
  backoff: { type: "exponential", delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 5000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 5000 },
});

/**
 * One id per task: `resolve.<deliveryId>` and `summary.<deliveryId>`, or `<kind>.<reviewJobId>`, so a retried or stalled
 * review (or a redelivered comment) enqueues each task once. BullMQ ids must not contain `:`.
 */
export function githubTaskId(task: GitHubTask): string {
  return task.kind === "resolve" || task.kind === "summary" ? `${task.kind}.${task.deliveryId}` : `${task.kind}.${task.reviewJobId}`;
}

/** Hands a task to the publisher, validated and sealed where it is written; returns its job id. */
export async function enqueueGitHubTask(queue: Queue, seal: QueueSeal, task: GitHubTask): Promise<string> {
  const parsed = GitHubTask.parse(task);
  const jobId = githubTaskId(parsed);
  await queue.add(parsed.kind, seal.seal(jobId, parsed), { ...GITHUB_TASK_OPTIONS, jobId });
  return jobId;
}
