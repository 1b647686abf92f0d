import type { RedisClient } from "@reviewbot/queue/redis-client";
import { PR_COMMANDS } from "@reviewbot/contracts/pr-command";
import { dismissedCount } from "@reviewbot/github/dismissed-count";
import type { SummaryExtrasOf } from "@reviewbot/github/publish-summary";
import { isPaused } from "@reviewbot/queue/pause-state";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/**
 * What the PR's summary comment shows beside the review, from the api's own state: the commands
 * as `@<app slug> <command>` (docs/github-app.md, "Commands"), whether the `pause` command paused
 * the PR's automatic reviews, and how many findings trusted people dismissed on it.
 */
export function summaryExtrasOf(redis: RedisClient, keys: RedisKeyspace, appSlug: () => Promise<string>): SummaryExtrasOf {
  return async (repositoryId, pullNumber) => {
    const slug = await appSlug();
    return {
      commands: PR_COMMANDS.map((command) => ({ usage: `@${slug} ${command.name}`, description: command.description })),
      paused: await isPaused(redis, keys, repositoryId, pullNumber),
      dismissed: await dismissedCount(redis, keys, repositoryId, pullNumber),
    };
  };
}
