import { z } from "zod";
import { ErrorCode } from "@reviewbot/core/errors";
import { PlacedAiFinding } from "./ai-report.js";
import { ChatRequest, ChatResponse } from "./chat.js";
import { CommitSha } from "./commit-sha.js";
import { WitnessChain } from "./model-witness.js";
import { PublishedReport } from "./published-report.js";
import { ReviewJob } from "./review-job.js";

/**
 * What a worker may ask of the api, and nothing else, on five routes: claim a job it holds (the
 * api's own record of the job, the job's repository token, and "review started" on GitHub), report
 * how it ended (published once), and, while it holds the job, call the model through the api's
 * broker, have the api fetch an allowlisted URL for the model, and read or fill the job's AI
 * cache. Each request names the job and the BullMQ lock token the worker holds it with; the api
 * checks both against Redis and its seal (apps/api/src/broker).
 */
export const JOB_CLAIM_PATH = "/internal/jobs/claim";
export const JOB_REPORT_PATH = "/internal/jobs/report";
/** The model broker: one model call for a job the worker holds (the api alone holds the key). */
export const JOB_MODEL_PATH = "/internal/jobs/model";
/** The model's `fetch_url`, performed by the api for the operator's allowlisted hosts only. */
export const JOB_FETCH_PATH = "/internal/jobs/fetch";
/** The AI review's per-chunk result cache, kept by the api under the job's own id. */
export const JOB_AI_CACHE_PATH = "/internal/jobs/ai-cache";

const jobRef = {
  // An AI-only retry's id is its review's with `.ai<attempt>` (reviewJobId in packages/queue).
  jobId: z.string().regex(/^review\.\d{1,16}\.\d{1,16}\.[A-Za-z0-9-]{1,100}(?:\.ai\d{1,2})?$/, "must be a review job id"),
  lockToken: z.string().regex(/^[A-Za-z0-9:._-]{1,200}$/, "must be a BullMQ lock token"),
};

export const ClaimRequest = z.strictObject(jobRef);
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/**
 * What the api's model broker offers this job: null when no model is configured (the AI review is
 * off). `fetchUrl` is false when no host is allowlisted or the repository is private.
 */
export const AiOffer = z.strictObject({
  model: z.string().min(1).max(200),
  maxOutputTokens: z.int().positive(),
  contextTokens: z.int().positive(),
  jobTokens: z.int().positive(),
  fetchUrl: z.boolean(),
});
export type AiOffer = z.infer<typeof AiOffer>;

/**
 * How long before its repository token expires (`expiresAt`) a worker ends the AI review's loop,
 * keeping that time for placing findings and reporting. The api's token lifetime must leave the
 * loop time beyond it, so both read it from here.
 */
export const AI_REPORT_MARGIN_MS = 60_000;

/** The most characters of an answer to a reply. */
export const MAX_ANSWER_CHARS = 4000;

/** A review thread of ours with the replies up to the one a job answers, oldest first. */
export const ReplyThread = z.strictObject({
  path: z.string().max(4096),
  line: z.int().positive().nullable(),
  comments: z
    .array(z.strictObject({ author: z.string().max(100), ours: z.boolean(), body: z.string().max(65_536) }))
    .min(1)
    .max(50),
});
export type ReplyThread = z.infer<typeof ReplyThread>;

/** The job as the api sealed it; a read token for its repository when the api holds a GitHub App. */
export const ClaimResponse = z.strictObject({
  job: ReviewJob,
  token: z.string().min(1).max(1000).nullable(),
  expiresAt: z.string().max(100).nullable(),
  ai: AiOffer.nullable(),
  /** The PR's title and description for the model (untrusted text), when the AI review is on and GitHub answered. */
  pullRequest: z.strictObject({ title: z.string().max(1000), body: z.string().max(20_000) }).nullable(),
  /**
   * The last AI review the api published for this PR, when this job is a push's review and the AI
   * review is on: its head (the incremental review starts there when it is an ancestor of this
   * one and the broker's `witness` shows the model saw every patch of the reviews it rests on)
   * and its findings, which the broker saw the model submit and the worker carries to this head
   * when their lines are unchanged.
   */
  previous: z.strictObject({ headSha: CommitSha, findings: z.array(PlacedAiFinding).max(500), witness: WitnessChain }).nullable(),
  /** For a job that answers a reply: the thread as GitHub has it, up to the reply (untrusted text), and where it sits. */
  thread: ReplyThread.nullable(),
});
export type ClaimResponse = z.infer<typeof ClaimResponse>;

/**
 * How a job ended: a review's report, a reply's answer (the model's text, posted in the thread),
 * a final failure (a catalogue code), or skipped (superseded before it began).
 */
export const JobOutcome = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("completed"), report: PublishedReport }),
  z.strictObject({ kind: z.literal("answered"), answer: z.string().min(1).max(MAX_ANSWER_CHARS) }),
  z.strictObject({ kind: z.literal("failed"), code: ErrorCode, reason: z.string().max(2000) }),
  z.strictObject({ kind: z.literal("skipped") }),
]);
export type JobOutcome = z.infer<typeof JobOutcome>;

export const ReportRequest = z.strictObject({ ...jobRef, outcome: JobOutcome });
export type ReportRequest = z.infer<typeof ReportRequest>;

/** `recorded` the first time; `duplicate` when the same kind of outcome was recorded before (a retried call). */
export const ReportResponse = z.strictObject({ status: z.enum(["recorded", "duplicate"]) });
export type ReportResponse = z.infer<typeof ReportResponse>;

export const ModelRequest = z.strictObject({ ...jobRef, request: ChatRequest });
export type ModelRequest = z.infer<typeof ModelRequest>;

/** The model's answer, and the job's token budget after it (the loop plans its last turns by it). */
export const ModelResponse = z.strictObject({
  response: ChatResponse,
  budget: z.strictObject({ usedTokens: z.int().nonnegative(), maxTokens: z.int().nonnegative() }),
});
export type ModelResponse = z.infer<typeof ModelResponse>;

export const FetchRequest = z.strictObject({ ...jobRef, url: z.string().min(1).max(2048) });
export type FetchRequest = z.infer<typeof FetchRequest>;

export const FetchResponse = z.strictObject({
  url: z.string().max(2048),
  status: z.int().min(100).max(599),
  contentType: z.string().max(200),
  text: z.string().max(1_048_576),
  truncated: z.boolean(),
});
export type FetchResponse = z.infer<typeof FetchResponse>;

/** The largest cached chunk result, serialised. */
export const MAX_AI_CACHE_BYTES = 262_144;

/**
 * `get` answers the result stored under `key`, or null; `put` stores one (first writer wins). The
 * api namespaces `key` (the worker's digest of config, model, prompt version and chunk) under the
 * job's id, so a worker reaches only its own job's entries, and no other job reads them.
 */
export const AiCacheRequest = z.discriminatedUnion("op", [
  z.strictObject({ ...jobRef, op: z.literal("get"), key: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 hex digest") }),
  z.strictObject({
    ...jobRef,
    op: z.literal("put"),
    key: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 hex digest"),
    result: z
      .unknown()
      .refine(
        (value) => value !== undefined && JSON.stringify(value).length <= MAX_AI_CACHE_BYTES,
        `must serialise to at most ${MAX_AI_CACHE_BYTES} characters`,
      ),
  }),
]);
export type AiCacheRequest = z.infer<typeof AiCacheRequest>;

export const AiCacheResponse = z.strictObject({ result: z.unknown() });
export type AiCacheResponse = z.infer<typeof AiCacheResponse>;
