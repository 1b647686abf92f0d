import { z } from "zod";
import { parseContract } from "./parse-contract.js";
import { PublishedReport } from "./published-report.js";
import { ReviewJob } from "./review-job.js";

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

const reviewRef = { reviewJobId: z.string().min(1).max(300), review: ReviewJob };

/** A worker started the review: the check run goes `in_progress`. */
const StartedTask = z.strictObject({ kind: z.literal("started"), ...reviewRef });

/** A worker finished the review: the check run completes with the report. */
const CompletedTask = z.strictObject({ kind: z.literal("completed"), ...reviewRef, report: PublishedReport });

/** The review failed for good (config error, bad job, retries exhausted): published as such. */
const FailedTask = z.strictObject({
  kind: z.literal("failed"),
  ...reviewRef,
  code: z.string().max(100),
  reason: z.string().max(2000),
});

/** Everything the publisher (the only holder of the App key) is asked to do. */
export const GitHubTask = z.discriminatedUnion("kind", [ResolveTask, StartedTask, CompletedTask, FailedTask]);
export type GitHubTask = z.infer<typeof GitHubTask>;
export type ResolveTask = z.infer<typeof ResolveTask>;
export type CompletedTask = z.infer<typeof CompletedTask>;

/** Reads a publisher task; a mismatch is a final `JOB_INVALID` naming the first bad field. */
export function parseGitHubTask(data: unknown): GitHubTask {
  return parseContract(GitHubTask, "github task", data);
}
