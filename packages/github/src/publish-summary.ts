import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
import { renderPrSummary, summaryKeys, type SummaryCommand } from "./render-pr-summary.js";
import { readSummaryState, summaryKey, writeSummaryState, type SummaryState } from "./summary-state.js";
import { upsertSummaryComment, type PullTarget } from "./upsert-summary-comment.js";
import { withRedisLock } from "./with-redis-lock.js";

/** What the summary shows that the review does not know: the commands, and the PR's pause and dismissals. */
export interface SummaryExtras {
  readonly commands: readonly SummaryCommand[];
  readonly paused: boolean;
  readonly dismissed: number;
}
export type SummaryExtrasOf = (repositoryId: number, pullNumber: number) => Promise<SummaryExtras>;
export const NO_SUMMARY_EXTRAS: SummaryExtrasOf = () => Promise.resolve({ commands: [], paused: false, dismissed: 0 });

export interface SummaryDeps {
  readonly logger: Logger;
  readonly scrubber: SecretScrubber;
  readonly extras: SummaryExtrasOf;
}

/** A review that was just published: its head, (scrubbed) report, and the PR's posted comments by fingerprint. */
export interface ReviewedForSummary {
  readonly headSha: string;
  readonly report: PublishedReport;
  readonly posted: Readonly<Record<string, number>>;
}

/**
 * Creates or edits the PR's summary comment, under the PR's summary lock (two api processes and
 * a retried task publish one after the other, each onto the same comment). With `reviewed`, the
 * state is that review's (the review before it becomes `previous`, unless it is the same head, as
 * for a retried AI review); without it (the `summary` command), the stored state is rendered
 * again, and nothing is done when there is none yet. GitHub refusing the comment for good (403,
 * 422) is logged, not retried. Returns the comment's id, or null when there was none to publish.
 */
export async function publishSummary(target: PullTarget, deps: SummaryDeps, reviewed: ReviewedForSummary | null): Promise<number | null> {
  const { redis, keys, repositoryId, pullNumber } = target;
  return withRedisLock(redis, summaryKey(keys, repositoryId, pullNumber, "lock"), { ttlMs: 60_000, waitMs: 90_000 }, async () => {
    const stored = await readSummaryState(redis, keys, repositoryId, pullNumber);
    const state = reviewed === null ? stored : nextState(stored, reviewed);
    if (state === null) {
      deps.logger.info("no review to summarise yet: summary not published");
      return null;
    }
    if (reviewed !== null) await writeSummaryState(redis, keys, repositoryId, pullNumber, state);
    const markdown = renderPrSummary({ ...state, ...(await deps.extras(repositoryId, pullNumber)) });
    try {
      const id = await upsertSummaryComment(target, deps, markdown);
      deps.logger.info({ commentId: id, headSha: state.headSha }, "summary comment published");
      return id;
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status !== 403 && status !== 422) throw error;
      deps.logger.warn({ err: error }, "github refused the summary comment");
      return null;
    }
  });
}

function nextState(stored: SummaryState | null, reviewed: ReviewedForSummary): SummaryState {
  const previous =
    stored === null ? null : stored.headSha === reviewed.headSha ? stored.previous : { headSha: stored.headSha, keys: summaryKeys(stored.report) };
  const keys = new Set(summaryKeys(reviewed.report));
  const threads = Object.fromEntries(Object.entries(reviewed.posted).filter(([fingerprint]) => keys.has(fingerprint)));
  return { headSha: reviewed.headSha, report: reviewed.report, previous, threads };
}
