import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { ReviewWitness } from "@reviewbot/contracts/github-task";
import { MAX_WITNESSED_DIFFS, MAX_WITNESS_LINKS, findingDigest, type WitnessChain } from "@reviewbot/contracts/model-witness";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
import { stricterOf, type Severity } from "@reviewbot/contracts/severity";
import { aiFingerprint } from "./finding-fingerprint.js";
import { numberReviewComments } from "./number-review-comments.js";
import { postReviewOnce, type ReviewTarget } from "./post-review-once.js";
import { renderReviewComments, type ReviewPart } from "./render-review-comments.js";
import type { ReviewMemory } from "./review-memory.js";

export interface PublishReviewOptions {
  readonly helperComments: boolean;
  readonly maxComments?: number;
  /** `ai`: the AI review that completes a review published without it (posted under its own marker). */
  readonly part?: ReviewPart;
  /** The operator's floor (REVIEWBOT_MIN_INLINE_SEVERITY): the report's `minInlineSeverity` may raise it, never lower it. */
  readonly minInlineSeverity?: Severity;
}

/** The report's head and base, and what the model broker vouches for of its AI review (null: nothing). */
export interface ReviewedCommits {
  readonly headSha: string;
  readonly baseSha: string;
  readonly witness: ReviewWitness | null;
}

/** The most fingerprints remembered as posted per PR; past it the oldest are forgotten. */
const MAX_POSTED = 5000;

/**
 * Posts the PR review of one completed report and returns the PR's memory after it; the caller
 * holds the PR's memory lock (`updateReviewMemory`) and writes what this returns. Findings already
 * commented on at an earlier push are left out; the new comments are numbered by their markers and
 * remembered with their fingerprints; a completed AI review becomes the one the next push's review
 * starts from, with only what the broker witnessed of it. Safe to repeat: the review is posted once
 * per head, and numbering and remembering again give the same memory.
 */
export async function publishReview(
  target: ReviewTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  report: PublishedReport,
  options: PublishReviewOptions,
  memory: ReviewMemory,
  reviewed: ReviewedCommits,
): Promise<ReviewMemory> {
  const review = renderReviewComments(report, {
    headSha: target.headSha,
    helperComments: options.helperComments,
    posted: new Set(Object.keys(memory.posted)),
    ...(options.maxComments === undefined ? {} : { maxComments: options.maxComments }),
    ...(options.part === undefined ? {} : { part: options.part }),
    minSeverity: stricterOf(report.minInlineSeverity ?? "notice", options.minInlineSeverity ?? "notice"),
  });
  const reviewId = review === null ? null : await postReviewOnce(target, deps, review, options.part);
  const numbered = reviewId === null ? new Map<string, number>() : await numberReviewComments(target.octokit, target, reviewId);
  if (review !== null) deps.logger.info({ reviewId, comments: review.comments.length, repeated: review.repeated }, "pr review published");
  return remembered(memory, report, numbered, reviewed);
}

function remembered(memory: ReviewMemory, report: PublishedReport, numbered: ReadonlyMap<string, number>, reviewed: ReviewedCommits): ReviewMemory {
  const posted = Object.entries({ ...memory.posted, ...Object.fromEntries(numbered) }).slice(-MAX_POSTED);
  const comments = [...new Set([...memory.comments, ...numbered.values()])];
  // Only a completed AI review is one to start from: its findings are those at its head, and of
  // them only those the broker saw the model submit (or that it was handed) are carried on.
  const done = report.ai.status === "done";
  const vouched = new Set(reviewed.witness?.findings ?? []);
  return {
    reviewedHead: done ? reviewed.headSha : memory.reviewedHead,
    witness: done ? witnessChain(memory, reviewed) : memory.witness,
    ai: done
      ? report.ai.findings.filter((finding) => vouched.has(findingDigest(finding))).map((finding) => ({ finding, fingerprint: aiFingerprint(finding) }))
      : memory.ai,
    posted: Object.fromEntries(posted),
    comments,
  };
}

/**
 * The chain of witnessed reviews the next push's review may start from: this review alone when it
 * covered the whole PR; appended to the chain of the review it started from when that one is the
 * last remembered; else none (the next review is whole). A chain past its bounds is dropped too,
 * so the next review is whole and starts a new one.
 */
function witnessChain(memory: ReviewMemory, reviewed: ReviewedCommits): WitnessChain {
  const { witness } = reviewed;
  if (witness === null) return [];
  const link = { headSha: reviewed.headSha, since: witness.since, baseSha: reviewed.baseSha, diffs: witness.diffs };
  if (witness.since === null) return [link];
  if (memory.witness.at(-1)?.headSha !== witness.since) return [];
  const chain = [...memory.witness, link];
  const pieces = chain.reduce((sum, each) => sum + each.diffs.length, 0);
  return chain.length > MAX_WITNESS_LINKS || pieces > MAX_WITNESSED_DIFFS ? [] : chain;
}
