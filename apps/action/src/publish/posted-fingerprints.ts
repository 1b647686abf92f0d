import { markedFingerprint } from "@reviewbot/github/finding-fingerprint";
import { z } from "zod";
import { githubRequest } from "./github-request.js";
import type { ActionTarget } from "./publish-results.js";

/**
 * Who a workflow's GITHUB_TOKEN posts as: GitHub Actions' own App's bot user. A login ending in
 * `[bot]` is an App's bot account (no person can sign up with `[` in a login), and an App's slug
 * is its own, so no one else holds this login; the account type must say `Bot` too.
 */
export const ACTIONS_BOT_LOGIN = "github-actions[bot]";

/** The most review comments read per PR (100 a page), as the fleet remembers at most 5,000. */
const MAX_PAGES = 50;

const ListedComment = z.object({
  body: z.string().nullable(),
  user: z.object({ login: z.string(), type: z.string() }).nullable(),
});
const ListedComments = z.array(ListedComment).max(100);

/**
 * The fingerprints of the findings an earlier run already commented on: the memory of a runner
 * that keeps nothing is the PR's own review comments. A comment counts only when its author is
 * `author` (the token's identity, type `Bot`) and its body ends with our fingerprint marker: a PR
 * author who quotes our marker in a comment of their own cannot silence a finding.
 */
export async function postedFingerprints(target: ActionTarget, author: string = ACTIONS_BOT_LOGIN): Promise<Set<string>> {
  const posted = new Set<string>();
  const path = `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/pulls/${target.pullNumber}/comments`;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const comments = ListedComments.parse(await githubRequest(target, "GET", `${path}?per_page=100&page=${page}`));
    for (const comment of comments) {
      const ours = comment.user !== null && comment.user.type === "Bot" && comment.user.login.toLowerCase() === author.toLowerCase();
      const fingerprint = ours ? markedFingerprint(comment.body ?? "") : null;
      if (fingerprint !== null) posted.add(fingerprint);
    }
    if (comments.length < 100) break;
  }
  return posted;
}
