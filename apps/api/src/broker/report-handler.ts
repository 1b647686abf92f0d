import type { Queue } from "bullmq";
import type { RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import { releaseShare } from "@reviewbot/queue/fair-share";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { ReportRequest, type JobOutcome, type ReportResponse } from "@reviewbot/contracts/worker-protocol";
import { holdForAiRetry, settleAiRetry, type AiRetrySettings } from "./ai-retry.js";
import type { InstallationSlots } from "./installation-slots.js";
import { witnessOfReview } from "./job-witness.js";
import { recordOutcome } from "./record-outcome.js";
import { refuseUnfoundedSkip } from "./settings-skip-check.js";
import type { TokenVault } from "./token-vault.js";
import { workerRoute, type WorkerRouteDeps, type WorkerRouteSpec } from "./worker-route.js";

export interface ReportDeps extends WorkerRouteDeps {
  readonly github: Queue;
  readonly seal: QueueSeal;
  readonly vault: TokenVault | null;
  readonly slots: InstallationSlots;
  readonly maxBytes: number;
  readonly aiRetry: AiRetrySettings;
}

/**
 * `POST /internal/jobs/report`: the worker holding a job says how it ended. The outcome is recorded
 * once; a completed or failed review goes to the publisher with the repository, installation, PR
 * and SHAs of the api's own sealed job (never the worker's word), a completed one with what the
 * model broker witnessed of its AI review (all the PR's memory keeps of it); the job's installation slot is
 * freed, its tokens are revoked and its fair-share entry released. A review whose AI review met an
 * unavailable model endpoint is published with the helpers' results at once, and its AI review
 * retried alone later (`ai-retry.ts`), whose outcome amends the review's check run.
 */
export function reportHandler(deps: ReportDeps): RequestHandler {
  const route: WorkerRouteSpec<typeof ReportRequest> = {
    name: "report",
    schema: ReportRequest,
    maxBytes: deps.maxBytes,
    purpose: "report",
    noStore: false,
    logFields: (body) => ({ outcome: body.outcome.kind }),
  };
  return workerRoute(deps, route, async ({ body, job, fields, response }) => {
    refuseMismatch(job, body.outcome);
    refuseUnfoundedSkip(job, body.outcome);
    const status = await recordOutcome(deps.redis, deps.keys, body.jobId, body.outcome);
    await deps.slots.release(job.installationId, body.jobId);
    await publish(deps, body.jobId, job, body.outcome);
    await deps.vault?.revokeJob(body.jobId).catch((err: unknown) => {
      deps.logger.warn({ ...fields, err }, "token revocation failed; the sweeper retries");
    });
    await releaseShare(deps.redis, deps.keys, job.installationId, body.jobId);
    deps.logger.info({ ...fields, status }, "job outcome recorded");
    const answer: ReportResponse = { status };
    response.status(200).json(answer);
  });
}

/**
 * A review's report for a job that answers a reply, or an answer for a review, is not this job's
 * outcome: the api's sealed job says which kind it is, never the worker.
 */
function refuseMismatch(job: ReviewJob, outcome: JobOutcome): void {
  const answering = job.reply !== null;
  if ((outcome.kind === "answered" && !answering) || (outcome.kind === "completed" && answering)) {
    throw new AppError("REQUEST_INVALID", `a ${outcome.kind} outcome does not end a job that ${answering ? "answers a reply" : "reviews a PR"}`);
  }
}

async function publish(deps: ReportDeps, reviewJobId: string, review: ReviewJob, outcome: JobOutcome): Promise<void> {
  // A retry of the AI review alone has no check run of its own: it amends its review's, or nothing.
  if (review.mode === "ai-only") {
    await settleAiRetry(deps, reviewJobId, review, outcome);
    return;
  }
  switch (outcome.kind) {
    case "completed": {
      const report = await holdForAiRetry(deps, reviewJobId, review, outcome.report);
      const witness = await witnessOfReview(deps.redis, deps.keys, reviewJobId, report.ai);
      await enqueueGitHubTask(deps.github, deps.seal, { kind: "completed", reviewJobId, review, report, witness });
      return;
    }
    case "failed":
      await enqueueGitHubTask(deps.github, deps.seal, { kind: "failed", reviewJobId, review, code: outcome.code, reason: outcome.reason });
      return;
    case "answered":
      await enqueueGitHubTask(deps.github, deps.seal, { kind: "answer", reviewJobId, review, answer: outcome.answer });
      return;
    case "skipped":
      return;
  }
}
