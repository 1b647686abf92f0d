import { z } from "zod";

/**
 * A PR review thread as the review-thread query reads it: its node id, GitHub's flags, how many
 * comments it holds and the database id of the first (null for a comment GitHub no longer ties to one).
 */
export const ReviewThread = z.object({
  id: z.string().min(1),
  isResolved: z.boolean(),
  isOutdated: z.boolean(),
  comments: z.object({
    totalCount: z.int().nonnegative(),
    nodes: z.array(z.object({ databaseId: z.int().nullable() })).max(1),
  }),
});
export type ReviewThread = z.infer<typeof ReviewThread>;

/** Which of our open threads a sweep resolves: the outdated, unanswered ones after a push, or all of them. */
export type ThreadSweepKind = "outdated" | "open";

/**
 * `resolve`: ours, open, and (for a push's sweep) outdated and unanswered; `keep`: ours and open
 * but current or answered; `skip`: not ours, or resolved.
 */
export type ThreadVerdict = "resolve" | "keep" | "skip";

/**
 * What to do with one thread. Only a thread that starts with a comment of ours is ever
 * touched, and `isOurs` decides that from the comment ids we posted, never from comment text (anyone
 * can quote our marker). After a push (`outdated`), a thread someone replied to stays open, outdated
 * or not: a human is talking there. The `resolve` command (`open`) resolves every open thread of ours.
 */
export function threadVerdict(thread: ReviewThread, isOurs: (commentDatabaseId: number) => boolean, which: ThreadSweepKind = "outdated"): ThreadVerdict {
  const first = thread.comments.nodes[0]?.databaseId ?? null;
  if (thread.isResolved || first === null || !isOurs(first)) return "skip";
  return which === "open" || (thread.isOutdated && thread.comments.totalCount === 1) ? "resolve" : "keep";
}
