import { z } from "zod";
import { ErrorCode } from "@reviewbot/core/errors";
import { CommitSha } from "./commit-sha.js";
import { MAX_WITNESSED_DIFFS, WitnessDigest } from "./model-witness.js";
import { PublishedReport } from "./published-report.js";
import { ReviewJob } from "./review-job.js";
import { MAX_ANSWER_CHARS } from "./worker-protocol.js";

/** A PR the API knows only by number (an `/review` comment): the publisher looks up its SHAs. */
const ResolveTask = z.strictObject({
  kind: z.literal("resolve"),
  installationId: ReviewJob.shape.installationId,
  repositoryId: ReviewJob.shape.repositoryId,
  repository: ReviewJob.shape.repository,
  pullNumber: ReviewJob.shape.pullNumber,
  deliveryId: ReviewJob.shape.deliveryId,
  trigger: ReviewJob.shape.trigger,
});

/** A trusted person's `summary` command: the PR's summary comment is rendered again from what the api stored, without a review. */
const SummaryTask = z.strictObject({
  kind: z.literal("summary"),
  installationId: ReviewJob.shape.installationId,
  repositoryId: ReviewJob.shape.repositoryId,
  repository: ReviewJob.shape.repository,
  pullNumber: ReviewJob.shape.pullNumber,
  deliveryId: ReviewJob.shape.deliveryId,
});

const reviewRef = { reviewJobId: z.string().min(1).max(300), review: ReviewJob };

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
export const GitHubTask = z.discriminatedUnion("kind", [ResolveTask, StartedTask, CompletedTask, FailedTask, AnswerTask, AiRetriedTask, SummaryTask]);
export type GitHubTask = z.infer<typeof GitHubTask>;
export type ResolveTask = z.infer<typeof ResolveTask>;
export type CompletedTask = z.infer<typeof CompletedTask>;
export type AnswerTask = z.infer<typeof AnswerTask>;
export type AiRetriedTask = z.infer<typeof AiRetriedTask>;
export type SummaryTask = z.infer<typeof SummaryTask>;
