import { z } from "zod";
import { ErrorCode } from "@reviewbot/core/errors";
import { CommitSha } from "./commit-sha.js";
import { MAX_WITNESSED_DIFFS, WitnessDigest } from "./model-witness.js";
import { PrCommandName } from "./pr-command.js";
import { PublishedReport } from "./published-report.js";
import { ReviewJob } from "./review-job.js";
import { MAX_ANSWER_CHARS } from "./worker-protocol.js";

const pullRef = {
  installationId: ReviewJob.shape.installationId,
  repositoryId: ReviewJob.shape.repositoryId,
  repository: ReviewJob.shape.repository,
  pullNumber: ReviewJob.shape.pullNumber,
  deliveryId: ReviewJob.shape.deliveryId,
};

/** A PR the API knows only by number (an `/review` comment): the publisher looks up its SHAs. */
const ResolveTask = z.strictObject({
  kind: z.literal("resolve"),
  ...pullRef,
  trigger: ReviewJob.shape.trigger,
});

/**
 * A trusted person's command (packages/contracts/src/pr-command.ts) in a comment on the PR
 * (`issue`) or a reply in one of our review threads (`thread`, whose first comment is `threadId`):
 * the publisher reacts to the comment and carries the command out.
 */
const CommandTask = z.strictObject({
  kind: z.literal("command"),
  ...pullRef,
  command: PrCommandName,
  comment: z.discriminatedUnion("on", [
    z.strictObject({ on: z.literal("issue"), id: ReviewJob.shape.pullNumber }),
    z.strictObject({ on: z.literal("thread"), id: ReviewJob.shape.pullNumber, threadId: ReviewJob.shape.pullNumber }),
  ]),
});

/** The PR's summary comment rendered again from what the api stored (the `summary` command). */
const SummaryTask = z.strictObject({ kind: z.literal("summary"), ...pullRef });

const reviewRef = { reviewJobId: z.string().min(1).max(300), review: ReviewJob };

/**
 * A push to a PR the `pause` command paused, not reviewed: the review job it would have been
 * (never enqueued) gets a check run of its own that says so (conclusion `skipped`).
 */
const PausedTask = z.strictObject({ kind: z.literal("paused"), ...reviewRef });

/** A worker started the review: the check run goes `in_progress`. */
const StartedTask = z.strictObject({ kind: z.literal("started"), ...reviewRef });

/**
 * What the api's model broker vouches for of a `done` AI review (apps/api/src/broker/job-witness.ts):
 * the head it started from (null: the whole PR), the digests of the diff pieces the model was
 * shown, and the digests of the report's findings the model submitted or the job was handed. Only
 * this goes into the PR's review memory, never the report's word alone.
 */
export const ReviewWitness = z.strictObject({
  since: CommitSha.nullable(),
  diffs: z.array(WitnessDigest).max(MAX_WITNESSED_DIFFS),
  findings: z.array(WitnessDigest).max(500),
});
export type ReviewWitness = z.infer<typeof ReviewWitness>;

/**
 * A worker finished the review: the check run completes with the report. `witness` is set for a
 * `done` AI review; without it (another status, or a task queued before there was one) the PR's
 * memory keeps nothing of the AI review a later job could start from.
 */
const CompletedTask = z.strictObject({ kind: z.literal("completed"), ...reviewRef, report: PublishedReport, witness: ReviewWitness.nullable().optional() });

/**
 * The AI review alone, retried by the api after the model endpoint was unavailable, is over: the
 * review's own check run (`reviewJobId` and `review` are the review's, not the retry's) is updated
 * with `report`, the review's report with this AI review in it, and the AI review's comments are posted.
 */
const AiRetriedTask = z.strictObject({ kind: z.literal("ai-retried"), ...reviewRef, report: PublishedReport, witness: ReviewWitness.nullable().optional() });

/** A worker answered a reply: the answer goes into the reply's thread, once. */
const AnswerTask = z.strictObject({ kind: z.literal("answer"), ...reviewRef, answer: z.string().min(1).max(MAX_ANSWER_CHARS) });

/** The review failed for good (config error, bad job, retries exhausted): published as such. */
const FailedTask = z.strictObject({
  kind: z.literal("failed"),
  ...reviewRef,
  code: ErrorCode,
  reason: z.string().max(2000),
});

/**
 * Everything the publisher (the only holder of the App key) is asked to do. Only the api writes
 * these, sealed by the queue; workers reach the publisher through the api's report route.
 */
export const GitHubTask = z.discriminatedUnion("kind", [
  ResolveTask,
  StartedTask,
  CompletedTask,
  FailedTask,
  AnswerTask,
  AiRetriedTask,
  CommandTask,
  SummaryTask,
  PausedTask,
]);
export type GitHubTask = z.infer<typeof GitHubTask>;
export type ResolveTask = z.infer<typeof ResolveTask>;
export type CompletedTask = z.infer<typeof CompletedTask>;
export type AnswerTask = z.infer<typeof AnswerTask>;
export type AiRetriedTask = z.infer<typeof AiRetriedTask>;
export type CommandTask = z.infer<typeof CommandTask>;
export type SummaryTask = z.infer<typeof SummaryTask>;
export type PausedTask = z.infer<typeof PausedTask>;
