import { z } from "zod";
import { CommitSha } from "./commit-sha.js";
import { parseContract } from "./parse-contract.js";

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const branch = z.string().regex(/^[A-Za-z0-9._/-]{1,255}$/, "must be a plain branch name");

/**
 * A label name as a job carries it: GitHub's limit of 50 characters, no control character (which
 * GitHub's label names do not have, and whose escapes would multiply a job's size).
 */
export const PullLabel = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[^\p{Cc}]+$/u, "must have no control character");

/** The most retries of the AI review alone the api may schedule for one review (a bound on `aiAttempt`). */
export const MAX_AI_ATTEMPTS = 10;

/**
 * What started a job; `local` is the embedded-defaults source (no GitHub); `review_comment` is a
 * trusted reviewer's reply in one of our review threads, which the job answers.
 */
export const REVIEW_TRIGGERS = ["pull_request", "issue_comment", "check_run", "local", "review_comment"] as const;

/**
 * A review job: identifiers only, never a token, a URL or PR text. Validated where it is written
 * (the API) and again where it is read (the worker), since Redis is shared state.
 */
export const ReviewJob = z.strictObject({
  installationId: id,
  repositoryId: id,
  /** `owner/name` as GitHub spells it; the worker derives the clone URL from it. */
  repository: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, "must be owner/name")
    // GitHub refuses these names; a local source would resolve them to a parent directory.
    .refine((name) => !/\/\.\.?$/.test(name), "must not name the repository . or .."),
  pullNumber: id,
  headSha: CommitSha,
  baseSha: CommitSha,
  /** The branch the PR targets, whose history must contain `baseSha` (the diff's side). */
  baseRef: branch,
  /**
   * The repository's default branch: the trusted `.ai/` is read from its head when the job runs,
   * never from the PR's base (a PR may target a stale branch with a weaker config).
   */
  defaultBranch: branch,
  /**
   * The PR's `updated_at` as GitHub reported it together with `headSha` (GitHub's clock): orders
   * the events of one PR, so a delayed or replayed event cannot roll its recorded head back.
   */
  pullUpdatedAt: z.iso.datetime({ offset: true }),
  /**
   * Where `headSha` was read: a webhook payload (`event`, possibly old or replayed) or GitHub's API
   * when the publisher looked the PR up (`api`, the PR's head at that moment).
   */
  headFrom: z.enum(["event", "api"]),
  /**
   * Whether the repository is private, as the webhook said; private unless it said otherwise (a
   * job resolved through the API for a command or a re-run keeps the default). The model's
   * `fetch_url` is off for private repositories: a fetched URL could carry their code out.
   */
  repositoryPrivate: z.boolean().default(true),
  deliveryId: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be a GitHub delivery id"),
  trigger: z.enum(REVIEW_TRIGGERS),
  /**
   * Set on a job that answers a reply instead of reviewing: the reply's comment id and the id of
   * the comment of ours that opened its thread. Such a job has no check run and no lease on the PR.
   */
  reply: z.strictObject({ commentId: id, threadId: id }).nullable().default(null),
  /**
   * `review` (or absent): the whole pipeline. `ai-only`: the api's retry of the AI review alone,
   * after the model endpoint was unavailable for the review of the same head: no context script
   * and no helper runs; the api merges its AI review into the review it already published.
   */
  mode: z.enum(["review", "ai-only"]).optional(),
  /**
   * Where the AI review starts, set by a command: `last-review` (the `review` command) from the
   * api's record of the PR's last review, `whole` (`full review`) the whole PR, whatever was
   * reviewed. Absent: a push's review starts from the last review, any other trigger reviews whole.
   */
  since: z.enum(["last-review", "whole"]).optional(),
  /**
   * The PR as the webhook of an automatic review (`pull_request`) showed it: whether it is a draft,
   * its labels, and whether a GitHub App opened it. The worker checks them against the trusted
   * `.ai/review-config.json` and may end the job skipped; absent on a maintainer's explicit request
   * (a command, a re-run), which the settings never skip.
   */
  pull: z
    // GitHub allows 100 labels on a PR.
    .strictObject({ draft: z.boolean(), labels: z.array(PullLabel).max(100), authorBot: z.boolean() })
    .optional(),
  /** Which retry of the AI review an `ai-only` job is (from 1). */
  aiAttempt: z.int().min(1).max(MAX_AI_ATTEMPTS).optional(),
});
export type ReviewJob = z.infer<typeof ReviewJob>;

/** Reads a review job from the queue; a mismatch is a final `JOB_INVALID` naming the field. */
export function parseReviewJob(data: unknown): ReviewJob {
  return parseContract(ReviewJob, "review job", data);
}

/** The PR a job reviews, as one key for leases, supersession and logs. */
export function pullRequestKey(job: Pick<ReviewJob, "repositoryId" | "pullNumber">): string {
  return `${job.repositoryId}.${job.pullNumber}`;
}
