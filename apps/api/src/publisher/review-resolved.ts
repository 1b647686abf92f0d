import type { ResolveTask } from "@reviewbot/contracts/github-task";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { Logger } from "@reviewbot/core/logger";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import type { GitHubTaskDeps, TaskOutcome } from "./handle-github-task.js";

/**
 * Looks the PR up by number and enqueues its review at the head GitHub reports now (with
 * supersession and fair share, like a webhook's); `since` is a command's (`review`, `full review`).
 * Skipped without a GitHub App, for a closed or draft PR, or when a newer head is already recorded.
 */
export async function reviewResolved(task: ResolveTask, deps: GitHubTaskDeps, logger: Logger, since?: ReviewJob["since"]): Promise<TaskOutcome> {
  if (deps.resolve === null) {
    logger.warn("resolve task without a GitHub App: skipped");
    return "skipped";
  }
  const resolved = await deps.resolve(task);
  if (resolved === null) {
    logger.info("pull request is closed, a draft the operator never reviews, or gone: not reviewed");
    return "skipped";
  }
  const job = since === undefined ? resolved : { ...resolved, since };
  const outcome = await enqueueReview(deps.reviews, deps.redis, deps.keys, deps.seal, job);
  if (outcome.stale !== null) {
    // A newer head is already recorded for the PR: nothing was enqueued.
    logger.info({ headSha: job.headSha, recordedHead: outcome.stale.recordedHead }, "resolved head is older than the recorded one: not enqueued");
    return "skipped";
  }
  logger.info({ jobId: outcome.jobId, headSha: job.headSha, since, removed: outcome.removed, cancelled: outcome.cancelled }, "resolved review enqueued");
  return "done";
}
