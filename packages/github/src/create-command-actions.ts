import type { Logger } from "@reviewbot/core/logger";
import type { CommandTask } from "@reviewbot/contracts/github-task";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { appSlugOf } from "./app-identity.js";
import type { GitHubApp } from "./create-github-app.js";
import { postHelpOnce } from "./post-help-once.js";
import { reactToComment } from "./react-to-comment.js";
import { resolveOutdatedThreads, type ThreadSweep } from "./resolve-outdated-threads.js";
import { readReviewMemory } from "./review-memory.js";

/** What a command asks of GitHub; the publisher (the only holder of the App key) runs these. */
export interface CommandActions {
  /** The 👀 reaction on the command's comment; false when the comment is gone. */
  acknowledge(task: CommandTask): Promise<boolean>;
  /** The help reply, once per comment; its id, or null when GitHub refused it for good. */
  help(task: CommandTask): Promise<number | null>;
  /** Resolves every open thread of ours on the PR (ours by the comment ids the api posted). */
  resolveThreads(task: CommandTask, logger: Logger): Promise<ThreadSweep>;
}

/** The GitHub side of the commands (docs/github-app.md, "Commands"), each idempotent under a retried task. */
export function createCommandActions(deps: {
  readonly app: GitHubApp;
  readonly appId: number;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
}): CommandActions {
  const slugOf = appSlugOf(deps.app, deps.appId);
  const where = async (task: CommandTask) => {
    const [owner = "", repo = ""] = task.repository.split("/");
    return { octokit: await deps.app.getInstallationOctokit(task.installationId), owner, repo, comment: task.comment };
  };
  return {
    async acknowledge(task) {
      const place = await where(task);
      return reactToComment(place.octokit, place);
    },
    async help(task) {
      const place = await where(task);
      return postHelpOnce(place.octokit, deps.redis, deps.keys, {
        ...place,
        repositoryId: task.repositoryId,
        pullNumber: task.pullNumber,
        slug: await slugOf(),
      });
    },
    async resolveThreads(task, logger) {
      const { octokit, owner, repo } = await where(task);
      const ours = new Set((await readReviewMemory(deps.redis, deps.keys, task.repositoryId, task.pullNumber)).comments);
      return resolveOutdatedThreads(octokit, { owner, repo, pullNumber: task.pullNumber }, (id) => ours.has(id), logger, "open");
    },
  };
}
