import { z } from "zod";
import { ERROR_CATALOGUE, type ErrorCode } from "@reviewbot/core/errors";
import { PublishedReport } from "./published-report.js";
import { ReviewJob } from "./review-job.js";

/**
 * What a worker may ask of the api, and nothing else: claim a job it holds (the api's own record
 * of the job, the job's repository token, and "review started" on GitHub), and report how it
 * ended (published once). Each request names the job and the BullMQ lock token the worker holds
 * it with; the api checks both against Redis and its seal (apps/api/src/broker).
 */
export const JOB_CLAIM_PATH = "/internal/jobs/claim";
export const JOB_REPORT_PATH = "/internal/jobs/report";

const jobRef = {
  jobId: z.string().regex(/^review\.\d{1,16}\.\d{1,16}\.[A-Za-z0-9-]{1,100}$/, "must be a review job id"),
  lockToken: z.string().regex(/^[A-Za-z0-9:._-]{1,200}$/, "must be a BullMQ lock token"),
};

export const ClaimRequest = z.strictObject(jobRef);
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/** The job as the api sealed it; a read token for its repository when the api holds a GitHub App. */
export const ClaimResponse = z.strictObject({
  job: ReviewJob,
  token: z.string().min(1).max(1000).nullable(),
  expiresAt: z.string().max(100).nullable(),
});
export type ClaimResponse = z.infer<typeof ClaimResponse>;

const codes = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

/** How a review ended: a report, a final failure (a catalogue code), or skipped (superseded before it began). */
export const JobOutcome = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("completed"), report: PublishedReport }),
  z.strictObject({ kind: z.literal("failed"), code: z.enum(codes), reason: z.string().max(2000) }),
  z.strictObject({ kind: z.literal("skipped") }),
]);
export type JobOutcome = z.infer<typeof JobOutcome>;

export const ReportRequest = z.strictObject({ ...jobRef, outcome: JobOutcome });
export type ReportRequest = z.infer<typeof ReportRequest>;

/** `recorded` the first time; `duplicate` when the same kind of outcome was recorded before (a retried call). */
export const ReportResponse = z.strictObject({ status: z.enum(["recorded", "duplicate"]) });
export type ReportResponse = z.infer<typeof ReportResponse>;
