import type { PublishedReport } from "@reviewbot/contracts/published-report";
import { renderReviewComments } from "@reviewbot/github/render-review-comments";
import { z } from "zod";
import { githubRequest } from "./github-request.js";
import { postedFingerprints } from "./posted-fingerprints.js";
import type { ActionTarget } from "./publish-results.js";

const PostedReview = z.object({ id: z.int().positive(), html_url: z.string().nullish() });

/**
 * Posts one PR review (`COMMENT`) with the findings anchored on the diff as inline comments (the
 * fleet's renderer: the AI review's placed findings, then helper findings inside a hunk), leaving
 * out every finding an earlier run already commented on ({@link postedFingerprints}). Needs
 * `pull-requests: write`; GitHub's refusal is thrown to the caller. `everyFinding` says, closing
 * the review body, where every finding is (the check run when there is one, else the run's
 * annotations and step summary). Returns how many comments were
 * posted and repeated, and the review (null when nothing new was left to say).
 */
export async function publishPrReview(
  target: ActionTarget,
  report: PublishedReport,
  everyFinding: string,
): Promise<{ readonly review: { readonly id: number; readonly url: string | null } | null; readonly comments: number; readonly repeated: number }> {
  const posted = await postedFingerprints(target);
  const rendered = renderReviewComments(report, { headSha: target.headSha, posted, minSeverity: report.minInlineSeverity ?? "notice", everyFinding });
  if (rendered === null) return { review: null, comments: 0, repeated: 0 };
  const path = `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/pulls/${target.pullNumber}/reviews`;
  const review = PostedReview.parse(
    await githubRequest(target, "POST", path, { commit_id: target.headSha, event: "COMMENT", body: rendered.body, comments: rendered.comments }),
  );
  return { review: { id: review.id, url: review.html_url ?? null }, comments: rendered.comments.length, repeated: rendered.repeated };
}
