import { CommitSha } from "@reviewbot/contracts/commit-sha";
import { PublishedReport } from "@reviewbot/contracts/published-report";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { z } from "zod";

/**
 * What the PR's summary comment was last rendered from, kept by the api in a Redis key no worker
 * can reach (the worker's ACL names only its own keys), so a `summary` command re-renders it
 * without a review and without trusting anything on the PR: the last review's head and its
 * (scrubbed) report, the review before it (its head and finding keys: what this push changed),
 * and the review comment of each posted finding (from the PR's review memory: linked as threads).
 */
export const SummaryState = z.strictObject({
  headSha: CommitSha,
  report: PublishedReport,
  previous: z.strictObject({ headSha: CommitSha, keys: z.array(z.string().max(300)).max(21_000) }).nullable(),
  threads: z.record(z.string().regex(/^[0-9a-f]{32}$/), z.int().positive().max(Number.MAX_SAFE_INTEGER)),
});
export type SummaryState = z.infer<typeof SummaryState>;

const TTL_SECONDS = 90 * 24 * 3600;

export function summaryKey(keys: RedisKeyspace, repositoryId: number, pullNumber: number, what: "state" | "comment" | "lock"): string {
  return what === "lock" ? `${keys.ours}:lock:summary:${repositoryId}:${pullNumber}` : `${keys.ours}:summary:${what}:${repositoryId}:${pullNumber}`;
}

/** The PR's summary state; null when there is none or what is stored does not read as one. */
export async function readSummaryState(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number): Promise<SummaryState | null> {
  const stored = await redis.get(summaryKey(keys, repositoryId, pullNumber, "state"));
  if (stored === null) return null;
  try {
    const parsed = SummaryState.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function writeSummaryState(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number, state: SummaryState): Promise<void> {
  await redis.set(summaryKey(keys, repositoryId, pullNumber, "state"), JSON.stringify(SummaryState.parse(state)), "EX", TTL_SECONDS);
}
