import type { Octokit } from "@octokit/core";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { isOurAuthor, type AppIdentity, type ListedAuthor } from "./app-identity.js";
import { reviewMarker, type RenderedReview, type ReviewPart } from "./render-review-comments.js";
import { postOnce } from "./post-once.js";

export interface ReviewTarget {
  readonly octokit: Octokit;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly repositoryId: number;
  readonly owner: string;
  readonly repo: string;
  readonly pullNumber: number;
  readonly headSha: string;
  /** Who we post as: only its reviews and comments are ours. */
  readonly identity: AppIdentity;
}

interface ListedReview {
  readonly id: number;
  readonly body: string | null;
  readonly user: ListedAuthor | null;
}

/**
 * Posts reviewbot's PR review of one head of one PR (or its later AI review, `part`) at most once: skipped when Redis remembers it
 * for this PR and head, or when the PR already has a review by our App's bot user carrying the
 * head's hidden marker. Anyone can quote the marker (a PR author in the description, another App's
 * bot quoting it), so the author's user id decides, never the text or the account type; and another
 * PR with the same head (a decoy) has a record of its own. Posting happens under a Redis lock.
 * GitHub's 422 (a comment GitHub will not place) is logged and not retried: it would fail again.
 * Returns the review's id (posted now or before), so its comments can be numbered; null when
 * GitHub refused it.
 */
export async function postReviewOnce(
  target: ReviewTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  review: RenderedReview,
  part: ReviewPart = "review",
): Promise<number | null> {
  const { redis, keys, repositoryId, pullNumber, headSha } = target;
  const which = `${String(repositoryId)}:${String(pullNumber)}:${headSha}${part === "review" ? "" : `:${part}`}`;
  const marks = { postedKey: `${keys.ours}:review:${which}`, lockKey: `${keys.ours}:lock:review:${which}` };
  return postOnce(redis, marks, async () => {
    const marker = reviewMarker(headSha, part);
    for (let page = 1; page <= 10; page++) {
      const { data } = (await target.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.pullNumber,
        per_page: 100,
        page,
      })) as { data: ListedReview[] };
      const ours = data.find((r) => isOurAuthor(target.identity, r.user) && (r.body ?? "").includes(marker));
      if (ours !== undefined) return ours.id;
      if (data.length < 100) break;
    }
    const scrub = (text: string): string => deps.scrubber.scrub(text);
    try {
      const { data } = await target.octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.pullNumber,
        commit_id: headSha,
        event: "COMMENT",
        body: scrub(review.body),
        comments: review.comments.map((c) => ({ ...c, body: scrub(c.body) })),
      });
      return (data as { id: number }).id;
    } catch (error) {
      if ((error as { status?: unknown }).status !== 422) throw error;
      deps.logger.warn({ err: error, comments: review.comments.length }, "github refused the review comments");
      return 0;
    }
  });
}
