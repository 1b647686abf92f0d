import type { Queue, Worker } from "bullmq";
import type { Logger } from "@reviewbot/core/logger";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import { createCommandActions } from "@reviewbot/github/create-command-actions";
import { resolvePullRequest } from "@reviewbot/github/resolve-pull-request";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import type { ReviewSink } from "@reviewbot/queue/review-sink";
import type { ApiMetrics } from "../api-metrics.js";
import type { PullRequestResolver } from "../publisher/handle-github-task.js";
import { startPublisher } from "../publisher/start-publisher.js";
import type { ApiRedis } from "./open-redis.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface PublisherParts {
  /** Null with the local sink: a `resolve` task cannot be answered without GitHub. */
  readonly app: GitHubApp | null;
  readonly sink: ReviewSink;
  readonly reviews: Queue;
  readonly github: Queue;
  /** The App's id, with `app`. */
  readonly appId: number | null;
  readonly redis: ApiRedis;
  readonly keys: RedisKeyspace;
  readonly seal: QueueSeal;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  /** Whether a maintainer's request may review a draft: the operator's REVIEWBOT_DRAFTS is not `never`. */
  readonly reviewDrafts: boolean;
}

/** Starts the publisher on the GitHub queue, on its own blocking connection. */
export function buildPublisher(parts: PublisherParts): Worker {
  const { app, appId, sink, reviews, github, redis, keys, seal, metrics, logger, reviewDrafts } = parts;
  const resolve: PullRequestResolver | null =
    app === null ? null : async (task) => resolvePullRequest(await app.getInstallationOctokit(task.installationId), task, { reviewDrafts });
  const commands = app === null || appId === null ? null : createCommandActions({ app, appId, redis: redis.api, keys });
  return startPublisher({
    sink,
    resolve,
    commands,
    reviews,
    tasks: github,
    redis: redis.api,
    keys,
    seal,
    blockingConnection: redis.publisher,
    metrics,
    logger,
  });
}
