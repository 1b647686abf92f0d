import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
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
}

/** The most fingerprints remembered as posted per PR; past it the oldest are forgotten. */
const MAX_POSTED = 5000;

/**
 * Posts the PR review of one completed report and returns the PR's memory after it; the caller
 * holds the PR's memory lock (`updateReviewMemory`) and writes what this returns. Findings already
 * commented on at an earlier push are left out; the new comments are numbered by their markers and
 * remembered with their fingerprints; a completed AI review becomes the one the next push's review
 * starts from. Safe to repeat: the review is posted once per head, and numbering and remembering
 * again give the same memory.
 */
export async function publishReview(
  target: ReviewTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  report: PublishedReport,
  options: PublishReviewOptions,
  memory: ReviewMemory,
): Promise<ReviewMemory> {
  const review = renderReviewComments(report, {
    headSha: target.headSha,
    helperComments: options.helperComments,
    posted: new Set(Object.keys(memory.posted)),
    ...(options.maxComments === undefined ? {} : { maxComments: options.maxComments }),
    ...(options.part === undefined ? {} : { part: options.part }),
  });
  const reviewId = review === null ? null : await postReviewOnce(target, deps, review, options.part);
  const numbered = reviewId === null ? new Map<string, number>() : await numberReviewComments(target.octokit, target, reviewId);
  if (review !== null) deps.logger.info({ reviewId, comments: review.comments.length, repeated: review.repeated }, "pr review published");
  return remembered(memory, report, numbered, target.headSha);
}

function remembered(memory: ReviewMemory, report: PublishedReport, numbered: ReadonlyMap<string, number>, headSha: string): ReviewMemory {
  const posted = Object.entries({ ...memory.posted, ...Object.fromEntries(numbered) }).slice(-MAX_POSTED);
  const comments = [...new Set([...memory.comments, ...numbered.values()])];
  // Only a completed AI review is one to start from: its findings are those at its head.
  const done = report.ai.status === "done";
  return {
    reviewedHead: done ? headSha : memory.reviewedHead,
    ai: done ? report.ai.findings.map((finding) => ({ finding, fingerprint: aiFingerprint(finding) })) : memory.ai,
    posted: Object.fromEntries(posted),
    comments,
  };
}
