import type { Octokit } from "@octokit/core";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";
import type { Redis } from "ioredis";
import { reviewMarker, type RenderedReview } from "./render-review-comments.js";
import { withRedisLock } from "./with-redis-lock.js";

export interface ReviewTarget {
  readonly octokit: Octokit;
  readonly redis: Redis;
  readonly repositoryId: number;
  readonly owner: string;
  readonly repo: string;
  readonly pullNumber: number;
  readonly headSha: string;
}

interface ListedReview {
  readonly body: string | null;
  readonly user: { readonly type?: string } | null;
}

const POSTED_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Posts reviewbot's PR review of one head at most once: skipped when Redis remembers it, or when
 * the PR already has a review by a bot carrying the head's hidden marker (a PR author cannot post
 * as a bot, so they cannot suppress it by quoting the marker). Posting happens under a Redis lock.
 * GitHub's 422 (a comment GitHub will not place) is logged and not retried: it would fail again.
 */
export async function postReviewOnce(
  target: ReviewTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  review: RenderedReview,
): Promise<void> {
  const postedKey = `${KEY_PREFIX}:review:${target.repositoryId}:${target.headSha}`;
  if ((await target.redis.exists(postedKey)) === 1) return;
  const lockKey = `${KEY_PREFIX}:lock:review:${target.repositoryId}:${target.headSha}`;
  await withRedisLock(target.redis, lockKey, { ttlMs: 30_000, waitMs: 45_000 }, async () => {
    if ((await target.redis.exists(postedKey)) === 1) return;
    const marker = reviewMarker(target.headSha);
    for (let page = 1; page <= 10; page++) {
      const { data } = (await target.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.pullNumber,
        per_page: 100,
        page,
      })) as { data: ListedReview[] };
      if (data.some((r) => r.user?.type === "Bot" && (r.body ?? "").includes(marker))) {
        await target.redis.set(postedKey, "1", "EX", POSTED_TTL_SECONDS);
        return;
      }
      if (data.length < 100) break;
    }
    const scrub = (text: string): string => deps.scrubber.scrub(text);
    try {
      await target.octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.pullNumber,
        commit_id: target.headSha,
        event: "COMMENT",
        body: scrub(review.body),
        comments: review.comments.map((c) => ({ ...c, body: scrub(c.body) })),
      });
    } catch (error) {
      if ((error as { status?: unknown }).status !== 422) throw error;
      deps.logger.warn({ err: error, comments: review.comments.length }, "github refused the review comments");
    }
    await target.redis.set(postedKey, "1", "EX", POSTED_TTL_SECONDS);
  });
}
