import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
import type { Severity } from "@reviewbot/contracts/severity";
import { TRUSTED_ASSOCIATIONS } from "@reviewbot/contracts/trusted-associations";
import type { ReviewSink } from "@reviewbot/queue/review-sink";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { amendCheckRun } from "./amend-check-run.js";
import { appIdentityOf } from "./app-identity.js";
import { collectDismissals } from "./collect-dismissals.js";
import { completeCheckRun } from "./complete-check-run.js";
import type { GitHubApp } from "./create-github-app.js";
import { findOrCreateCheckRun, type CheckRunTarget } from "./find-or-create-check-run.js";
import { postAnswerOnce } from "./post-answer-once.js";
import { publishReview } from "./publish-review.js";
import { NO_SUMMARY_EXTRAS, publishSummary, type SummaryExtrasOf } from "./publish-summary.js";
import { readReviewMemory, updateReviewMemory } from "./review-memory.js";
import { renderCheckRun } from "./render-check-run.js";
import { resolveOutdatedThreads } from "./resolve-outdated-threads.js";
import { scrubDeep } from "./scrub-deep.js";
import { withoutDismissed } from "./without-dismissed.js";

export interface GitHubSinkDeps {
  readonly app: GitHubApp;
  readonly appId: number;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly logger: Logger;
  readonly scrubber: SecretScrubber;
  /** REVIEWBOT_REVIEW_COMMENTS=on: also post helper findings on changed lines in the PR review (AI comments always go there). */
  readonly reviewComments: boolean;
  /** REVIEWBOT_MIN_INLINE_SEVERITY: the least severe finding that may go inline, whatever a repository's settings say. */
  readonly minInlineSeverity?: Severity;
  readonly maxAnnotations?: number;
  readonly maxReviewComments?: number;
  /** Whose dismissal replies count (REVIEWBOT_COMMAND_ASSOCIATIONS); OWNER, MEMBER and COLLABORATOR unless set. */
  readonly trustedAssociations?: readonly string[];
  /** The commands, pause and dismissals the PR's summary shows (none until the api wires them). */
  readonly summaryExtras?: SummaryExtrasOf;
}

/**
 * The GitHub review sink the api's publisher runs: one `reviewbot` check run per review job on its head SHA
 * (`started` → in progress; `completed` → conclusion, summary, annotations in batches of 50;
 * `failed` → failure naming the reason; superseded → cancelled; `ai-retried` → the same run amended with
 * the AI review retried alone), the PR review of what is new
 * since the earlier pushes (`publishReview`), remembered per PR, its outdated threads resolved,
 * and the PR's one summary comment, created once and edited in place (`publishSummary`).
 * Every method is idempotent across retries, stalls and several api processes. Our own reviews and
 * comments are told by our App's bot user, read once (`appIdentityOf`).
 */
export function createGitHubSink(deps: GitHubSinkDeps): ReviewSink {
  const identityOf = appIdentityOf(deps.app, deps.appId);
  const floor = deps.minInlineSeverity === undefined ? {} : { minInlineSeverity: deps.minInlineSeverity };
  const target = async (review: ReviewJob, reviewJobId: string): Promise<CheckRunTarget> => {
    const [owner = "", repo = ""] = review.repository.split("/");
    const octokit = await deps.app.getInstallationOctokit(review.installationId);
    return {
      octokit,
      redis: deps.redis,
      keys: deps.keys,
      appId: deps.appId,
      repositoryId: review.repositoryId,
      owner,
      repo,
      headSha: review.headSha,
      reviewJobId,
    };
  };
  const summaryDeps = (logger: Logger) => ({ logger, scrubber: deps.scrubber, extras: deps.summaryExtras ?? NO_SUMMARY_EXTRAS });
  const log = (review: ReviewJob, reviewJobId: string): Logger =>
    deps.logger.child({ jobId: reviewJobId, repo: review.repository, pr: review.pullNumber, headSha: review.headSha });
  // The report less what trusted people dismissed on the PR: neither a comment nor an annotation shows it again.
  const undismissed = async (where: CheckRunTarget, review: ReviewJob, logger: Logger, report: PublishedReport): Promise<PublishedReport> => {
    const memory = await readReviewMemory(deps.redis, deps.keys, review.repositoryId, review.pullNumber);
    const pull = { ...where, pullNumber: review.pullNumber };
    return withoutDismissed(report, await collectDismissals(pull, memory, deps.trustedAssociations ?? TRUSTED_ASSOCIATIONS, logger));
  };

  return {
    async started(task) {
      // Creating the run is all `started` does; a run that exists (even completed) is left alone.
      const run = await findOrCreateCheckRun(await target(task.review, task.reviewJobId));
      log(task.review, task.reviewJobId).info({ checkRunId: run.id, status: run.status }, "check run started");
    },

    async completed(task, supersededBy) {
      const where = await target(task.review, task.reviewJobId);
      const logger = log(task.review, task.reviewJobId);
      // Scrubbed before rendering: escaping would hide a registered secret from the scrubber.
      const scrubbed = scrubDeep(task.report, deps.scrubber);
      const report = supersededBy === null ? await undismissed(where, task.review, logger, scrubbed) : scrubbed;
      const outcome = supersededBy === null ? { kind: "completed" as const, report } : { kind: "superseded" as const, supersededBy };
      const rendered = renderCheckRun(outcome, {
        headSha: task.review.headSha,
        ...(deps.maxAnnotations === undefined ? {} : { maxAnnotations: deps.maxAnnotations }),
      });
      await completeCheckRun(where, { logger, scrubber: deps.scrubber }, rendered);
      if (supersededBy !== null) return;
      const pull = { ...where, pullNumber: task.review.pullNumber, identity: await identityOf(where.octokit) };
      // Under the PR's memory lock: two heads' publications neither interleave their memory nor
      // sweep the threads at once (each thread is resolved once).
      const memory = await updateReviewMemory(deps.redis, deps.keys, task.review.repositoryId, task.review.pullNumber, async (memory) => {
        const next = await publishReview(
          pull,
          { logger, scrubber: deps.scrubber },
          report,
          {
            helperComments: deps.reviewComments,
            ...floor,
            ...(deps.maxReviewComments === undefined ? {} : { maxComments: deps.maxReviewComments }),
          },
          memory,
          { headSha: task.review.headSha, baseSha: task.review.baseSha, witness: task.witness ?? null },
        );
        // Threads of ours this push left outdated, and nobody answered, are resolved (only ours: by the ids we posted).
        const ours = new Set(next.comments);
        if (ours.size > 0) await resolveOutdatedThreads(where.octokit, pull, (id) => ours.has(id), logger);
        return next;
      });
      // After the check run and the review: the summary links the threads just posted.
      await publishSummary(pull, summaryDeps(logger), { headSha: task.review.headSha, report, posted: memory.posted });
    },

    async answered(task) {
      const { reply } = task.review;
      if (reply === null) return;
      const where = await target(task.review, task.reviewJobId);
      const logger = log(task.review, task.reviewJobId);
      const pull = { ...where, pullNumber: task.review.pullNumber, identity: await identityOf(where.octokit) };
      const id = await postAnswerOnce(pull, { logger, scrubber: deps.scrubber }, reply, task.answer);
      // Ours from now on: the next answer in this thread shows the model which comments it wrote.
      if (id !== null)
        await updateReviewMemory(deps.redis, deps.keys, task.review.repositoryId, task.review.pullNumber, (memory) => ({
          ...memory,
          comments: [...new Set([...memory.comments, id])],
        }));
      logger.info({ replyId: reply.commentId, answerId: id }, "reply answered");
    },

    async aiRetried(task) {
      const where = await target(task.review, task.reviewJobId);
      const logger = log(task.review, task.reviewJobId);
      const report = await undismissed(where, task.review, logger, scrubDeep(task.report, deps.scrubber));
      const options = { headSha: task.review.headSha, ...(deps.maxAnnotations === undefined ? {} : { maxAnnotations: deps.maxAnnotations }) };
      // What the review's first publication showed: the same helpers' results, no AI finding.
      const earlier = renderCheckRun({ kind: "completed", report: { ...report, ai: { ...report.ai, findings: [] } } }, options);
      await amendCheckRun(where, { logger, scrubber: deps.scrubber }, renderCheckRun({ kind: "completed", report }, options), earlier.annotations);
      const pull = { ...where, pullNumber: task.review.pullNumber, identity: await identityOf(where.octokit) };
      // The helpers' comments, if any, went out with the review: this review carries the model's alone.
      const memory = await updateReviewMemory(deps.redis, deps.keys, task.review.repositoryId, task.review.pullNumber, (memory) =>
        publishReview(
          pull,
          { logger, scrubber: deps.scrubber },
          report,
          { helperComments: false, part: "ai", ...floor, ...(deps.maxReviewComments === undefined ? {} : { maxComments: deps.maxReviewComments }) },
          memory,
          { headSha: task.review.headSha, baseSha: task.review.baseSha, witness: task.witness ?? null },
        ),
      );
      await publishSummary(pull, summaryDeps(logger), { headSha: task.review.headSha, report, posted: memory.posted });
    },

    async summary(task) {
      const [owner = "", repo = ""] = task.repository.split("/");
      const octokit = await deps.app.getInstallationOctokit(task.installationId);
      const pull = {
        octokit,
        redis: deps.redis,
        keys: deps.keys,
        repositoryId: task.repositoryId,
        owner,
        repo,
        pullNumber: task.pullNumber,
        identity: await identityOf(octokit),
      };
      const logger = deps.logger.child({ deliveryId: task.deliveryId, repo: task.repository, pr: task.pullNumber });
      return (await publishSummary(pull, summaryDeps(logger), null)) === null ? "skipped" : "done";
    },

    async paused(task) {
      const rendered = renderCheckRun({ kind: "paused" }, { headSha: task.review.headSha });
      await completeCheckRun(await target(task.review, task.reviewJobId), { logger: log(task.review, task.reviewJobId), scrubber: deps.scrubber }, rendered);
    },

    async failed(task) {
      const rendered = renderCheckRun({ kind: "failed", code: task.code, reason: deps.scrubber.scrub(task.reason) }, { headSha: task.review.headSha });
      await completeCheckRun(await target(task.review, task.reviewJobId), { logger: log(task.review, task.reviewJobId), scrubber: deps.scrubber }, rendered);
    },
  };
}
