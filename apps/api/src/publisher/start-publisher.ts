import { Worker, type Job } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import { attemptFailure } from "@reviewbot/queue/attempt-failure";
import { openGitHubTask } from "@reviewbot/queue/queued-github-task";
import { GITHUB_QUEUE } from "@reviewbot/queue/queue-names";
import type { ApiMetrics } from "../api-metrics.js";
import { handleGitHubTask, type GitHubTaskDeps } from "./handle-github-task.js";

export interface PublisherOptions extends GitHubTaskDeps {
  /** A connection of its own that may block (`maxRetriesPerRequest: null`). */
  readonly blockingConnection: RedisClient;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  readonly concurrency?: number;
}

/**
 * The publisher: a BullMQ worker on the GitHub queue, inside the API process (the only holder of
 * the App key). A task without the api's seal fails at once, like an invalid one; an invalid task or a final error fails the task at once (UnrecoverableError, with
 * the reason); a retryable one (GITHUB_API_FAILED, Redis) is retried with the task's backoff, and
 * its last attempt fails with its code too ({@link attemptFailure}).
 */
export function startPublisher(options: PublisherOptions): Worker {
  const { metrics, logger } = options;
  const worker = new Worker(
    GITHUB_QUEUE,
    async (job: Job) => {
      const claimed = (job.data as { kind?: unknown }).kind;
      const kind = typeof claimed === "string" ? claimed.slice(0, 20) : "unknown";
      const log = logger.child({ taskId: job.id, kind, attempt: job.attemptsMade + 1 });
      try {
        // Only tasks the api sealed: workers share Redis, and without ACLs could write this queue.
        const task = openGitHubTask(options.seal, job.id ?? "", job.data);
        const taskLog = log.child(
          "review" in task
            ? { jobId: task.reviewJobId, repo: task.review.repository, pr: task.review.pullNumber, headSha: task.review.headSha }
            : { repo: task.repository, pr: task.pullNumber },
        );
        const outcome = await handleGitHubTask(task, options, taskLog);
        metrics.publisherTasks.inc({ kind: task.kind, outcome });
      } catch (err) {
        const failure = attemptFailure(job, err);
        metrics.publisherTasks.inc({ kind: labelFor(kind), outcome: failure.final ? "failed" : "retry" });
        if (!failure.final) log.warn({ err, code: failure.code }, "publisher task failed; retrying with backoff");
        else if (failure.retryable) log.error({ err, code: failure.code }, "publisher task failed after its last attempt");
        else log.error({ err, code: failure.code }, "publisher task failed for good");
        throw failure.thrown;
      }
    },
    { connection: options.blockingConnection, prefix: options.keys.bull, concurrency: options.concurrency ?? 4, autorun: true },
  );
  worker.on("error", (err) => {
    logger.error({ err }, "publisher connection error");
  });
  return worker;
}

const KINDS = new Set(["resolve", "started", "completed", "failed", "answer", "ai-retried", "command", "summary", "paused"]);

// The kind of an unparsed task is the sender's word: only known kinds become metric labels.
function labelFor(kind: string): string {
  return KINDS.has(kind) ? kind : "invalid";
}
