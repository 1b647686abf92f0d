import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import type { GitHubTask, ResolveTask } from "@reviewbot/contracts/github-task";
import { isSuperseded, latestHead } from "@reviewbot/queue/pull-request-state";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { ReviewSink } from "@reviewbot/queue/review-sink";
import type { CommandActions } from "@reviewbot/github/create-command-actions";
import { handleCommand } from "./handle-command.js";
import { reviewResolved } from "./review-resolved.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** Looks a PR up by number (packages/github resolvePullRequest); null: nothing to review. */
export type PullRequestResolver = (task: ResolveTask) => Promise<ReviewJob | null>;

export interface GitHubTaskDeps {
  readonly sink: ReviewSink;
  /** Null without a GitHub App (local sink): a resolve task then cannot be served. */
  readonly resolve: PullRequestResolver | null;
  readonly reviews: Queue;
  /** The publisher's own queue, for the tasks a command hands on (`summary`). */
  readonly tasks: Queue;
  /** Null without a GitHub App (local sink): a command cannot be carried out. */
  readonly commands: CommandActions | null;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly seal: QueueSeal;
}

/** What a task came to: `skipped` when there was nothing to do (a closed PR, no App). */
export type TaskOutcome = "done" | "skipped";

/**
 * Runs one publisher task: a `resolve` becomes a review job (enqueued with supersession and fair
 * share, like a webhook's); `started`, `completed` and `failed` go to the sink. A completed review
 * whose head is no longer the PR's latest is handed over with `supersededBy`, so it is never
 * shown as the PR's current result. An `ai-retried` task updates the review's check run with the
 * retried AI review, unless the PR has a newer head. A `command` is a trusted person's
 * (handleCommand). A `paused` task completes the check run of a push the `pause` command kept
 * from review. A `summary` task (the `summary` command) renders the PR's summary comment again from what the api stored at its last review.
 */
export async function handleGitHubTask(task: GitHubTask, deps: GitHubTaskDeps, logger: Logger): Promise<TaskOutcome> {
  switch (task.kind) {
    case "resolve":
      return reviewResolved(task, deps, logger);
    case "started":
      await deps.sink.started(task);
      return "done";
    case "completed": {
      const supersededBy = (await isSuperseded(deps.redis, deps.keys, task.review)) ? await latestHead(deps.redis, deps.keys, task.review) : null;
      await deps.sink.completed(task, supersededBy);
      if (supersededBy !== null) logger.info({ supersededBy }, "review result published as superseded");
      return "done";
    }
    case "failed":
      // A job that answered a reply has no check run to fail: the reply stays unanswered, logged.
      if (task.review.reply !== null) {
        logger.warn({ code: task.code, reason: task.reason, replyId: task.review.reply.commentId }, "reply not answered");
        return "done";
      }
      await deps.sink.failed(task);
      return "done";
    case "answer":
      await deps.sink.answered(task);
      return "done";
    case "ai-retried":
      // A newer head's review is (or will be) the PR's current result: an old head's AI review is not posted.
      if (await isSuperseded(deps.redis, deps.keys, task.review)) {
        logger.info("retried AI review of a superseded head: not published");
        return "skipped";
      }
      await deps.sink.aiRetried(task);
      return "done";
    case "command":
      return handleCommand(task, deps, logger);
    case "paused":
      await deps.sink.paused(task);
      return "done";
    case "summary": {
      const outcome = await deps.sink.summary(task);
      if (outcome === "skipped") logger.info("no summary to render again: skipped");
      return outcome;
    }
  }
}
