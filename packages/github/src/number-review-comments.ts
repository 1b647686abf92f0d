import type { Octokit } from "@octokit/core";
import { markedFingerprint } from "./finding-fingerprint.js";

interface ListedComment {
  readonly id: number;
  readonly body: string | null;
}

/** A review's comments are at most the render cap (30 by default); three pages of 100 hold any cap an operator sets. */
const MAX_PAGES = 3;

/**
 * The id GitHub gave each comment of one of our reviews, by the fingerprint its hidden marker
 * names: the review is ours (`postReviewOnce` posted it, or found it by its head's marker under our
 * App's bot user id), so its comments are ours too.
 */
export async function numberReviewComments(
  octokit: Octokit,
  pull: { readonly owner: string; readonly repo: string; readonly pullNumber: number },
  reviewId: number,
): Promise<Map<string, number>> {
  const numbered = new Map<string, number>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data } = (await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments", {
      owner: pull.owner,
      repo: pull.repo,
      pull_number: pull.pullNumber,
      review_id: reviewId,
      per_page: 100,
      page,
    })) as { data: ListedComment[] };
    for (const comment of data) {
      const fingerprint = markedFingerprint(comment.body ?? "");
      if (fingerprint !== null) numbered.set(fingerprint, comment.id);
    }
    if (data.length < 100) break;
  }
  return numbered;
}
