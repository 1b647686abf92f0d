import type { Express } from "express";
import { CHECK_RUN_NAME } from "@reviewbot/github/find-or-create-check-run";
import type { ApiConfig } from "../api-config.js";
import { createApiApp, type ApiDeps } from "../routes/create-api-app.js";
import type { ReplicaQuorum } from "../webhooks/replica-quorum.js";

/** Everything but what the operator's settings say: the parts main built. */
export type HttpAppParts = Omit<ApiDeps, "webhook" | "dashboard"> & {
  readonly appSlug: (() => Promise<string>) | null;
  readonly replicas: ReplicaQuorum;
};

/** The api's HTTP app from the operator's settings: the webhook's limits and filter, the dashboard's credentials. */
export function buildHttpApp(config: ApiConfig, { appSlug, replicas, ...parts }: HttpAppParts): Express {
  return createApiApp({
    webhook: {
      secret: config.REVIEWBOT_WEBHOOK_SECRET,
      maxBytes: config.REVIEWBOT_WEBHOOK_MAX_BYTES,
      maxConcurrentReads: config.REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS,
      readsPerSource: config.REVIEWBOT_WEBHOOK_READS_PER_SOURCE,
      bodyDeadlineMs: config.REVIEWBOT_WEBHOOK_BODY_DEADLINE_MS,
      minBytesPerSecond: config.REVIEWBOT_WEBHOOK_MIN_BYTES_PER_SECOND,
      appSlug,
      replicas,
      filter: {
        botLogins: config.REVIEWBOT_BOT_LOGINS,
        reviewCommand: config.REVIEWBOT_REVIEW_COMMAND,
        checkRunName: CHECK_RUN_NAME,
        appId: config.sink.kind === "github" ? config.sink.appId : null,
        pullRequestActions: config.REVIEWBOT_PR_ACTIONS,
        commandAssociations: config.REVIEWBOT_COMMAND_ASSOCIATIONS,
        // Replies are answered by the model: without one there is nothing to answer with.
        answers: config.REVIEWBOT_LLM_BASE_URL !== undefined,
        drafts: config.REVIEWBOT_DRAFTS,
        botPullRequests: config.REVIEWBOT_BOT_PULL_REQUESTS,
      },
    },
    ...parts,
    trustProxy: config.REVIEWBOT_TRUST_PROXY,
    dashboard:
      config.REVIEWBOT_DASHBOARD_PASSWORD === undefined ? null : { user: config.REVIEWBOT_DASHBOARD_USER, password: config.REVIEWBOT_DASHBOARD_PASSWORD },
  });
}
