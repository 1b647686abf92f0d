import type { CommandTask } from "@reviewbot/contracts/github-task";
import type { Logger } from "@reviewbot/core/logger";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import { setPaused } from "@reviewbot/queue/pause-state";
import type { GitHubTaskDeps, TaskOutcome } from "./handle-github-task.js";
import { reviewResolved } from "./review-resolved.js";

/**
 * Carries out a trusted person's command (docs/github-app.md, "Commands"): first the 👀 reaction
 * on its comment, then its effect. Each step is idempotent, so a retried task (or a redelivery the
 * ledger let through after a crash) does nothing twice: the reaction is GitHub's one per person and
 * content, the review and summary tasks have ids from the delivery, pausing is setting a key, the
 * help reply is posted once per comment, resolving skips resolved threads.
 */
export async function handleCommand(task: CommandTask, deps: GitHubTaskDeps, logger: Logger): Promise<TaskOutcome> {
  if (deps.commands === null) {
    logger.warn("command without a GitHub App: skipped");
    return "skipped";
  }
  const log = logger.child({ command: task.command, commentId: task.comment.id });
  if (!(await deps.commands.acknowledge(task))) {
    log.info("the command's comment is gone: not carried out");
    return "skipped";
  }
  const { command, installationId, repositoryId, repository, pullNumber, deliveryId } = task;
  const pull = { installationId, repositoryId, repository, pullNumber, deliveryId };
  switch (command) {
    case "review":
    case "full review":
      return reviewResolved({ kind: "resolve", ...pull, trigger: "issue_comment" }, deps, log, command === "review" ? "last-review" : "whole");
    case "pause":
    case "resume":
      await setPaused(deps.redis, deps.keys, repositoryId, pullNumber, command === "pause");
      log.info({ paused: command === "pause" }, command === "pause" ? "automatic reviews paused" : "automatic reviews resumed");
      return "done";
    case "resolve": {
      const sweep = await deps.commands.resolveThreads(task, log);
      log.info({ resolved: sweep.resolved }, "open review threads of ours resolved");
      return "done";
    }
    case "summary":
      await enqueueGitHubTask(deps.tasks, deps.seal, { kind: "summary", ...pull });
      log.info("summary refresh dispatched");
      return "done";
    case "help":
      await deps.commands.help(task);
      log.info("help reply posted");
      return "done";
  }
}
