import { CommitSha } from "@reviewbot/contracts/commit-sha";
import { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { WitnessChain } from "@reviewbot/contracts/model-witness";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { z } from "zod";
import { withRedisLock } from "./with-redis-lock.js";

const fingerprint = z.string().regex(/^[0-9a-f]{32}$/, "must be a finding fingerprint");
const commentId = z.int().positive().max(Number.MAX_SAFE_INTEGER);

/** The most comment ids remembered per PR; past it the oldest are forgotten (their threads are no longer resolved by us). */
export const MAX_REMEMBERED_COMMENTS = 5000;

/**
 * What the api remembers of its reviews of one PR, in a Redis key no worker can reach (the
 * worker's ACL has no `reviewbot:memory:*`), so nothing of it is inferred from comments a PR's
 * author could write:
 * - `reviewedHead`: the head of the last AI review that completed (`done`); the next push's
 *   review starts there when that commit is an ancestor of its head and `witness` bears it out;
 * - `witness`: what the model broker saw of that review and of the reviews it started from, back
 *   to a review of the whole PR (empty: the next review is whole);
 * - `ai`: that review's findings the broker saw the model submit, or that were handed to it
 *   (the worker carries them to the next head), each with the comment GitHub gave it, when it
 *   was posted;
 * - `posted`: the fingerprint of every finding posted as a comment and still standing, with the
 *   comment's id: a finding with one of these is not posted again;
 * - `comments`: the id of every comment posted on the PR, newest last: only their threads are
 *   resolved when outdated, and only replies to them are answered.
 */
export const ReviewMemory = z.strictObject({
  reviewedHead: CommitSha.nullable(),
  // A memory written before there was a witness reads as one with none.
  witness: WitnessChain.default([]),
  ai: z.array(z.strictObject({ finding: PlacedAiFinding, fingerprint })).max(500),
  posted: z.record(fingerprint, commentId),
  comments: z.array(commentId).max(MAX_REMEMBERED_COMMENTS),
});
export type ReviewMemory = z.infer<typeof ReviewMemory>;

const EMPTY: ReviewMemory = { reviewedHead: null, witness: [], ai: [], posted: {}, comments: [] };
const TTL_SECONDS = 90 * 24 * 3600;

export function reviewMemoryKey(keys: RedisKeyspace, repositoryId: number, pullNumber: number): string {
  return `${keys.ours}:memory:${repositoryId}:${pullNumber}`;
}

/** The PR's memory; empty when there is none, and when what is stored does not read as one (it is then rebuilt). */
export async function readReviewMemory(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number): Promise<ReviewMemory> {
  const stored = await redis.get(reviewMemoryKey(keys, repositoryId, pullNumber));
  if (stored === null) return EMPTY;
  const parsed = ReviewMemory.safeParse(safeJson(stored));
  return parsed.success ? parsed.data : EMPTY;
}

export async function writeReviewMemory(
  redis: RedisClient,
  keys: RedisKeyspace,
  repositoryId: number,
  pullNumber: number,
  memory: ReviewMemory,
): Promise<void> {
  const comments = memory.comments.slice(-MAX_REMEMBERED_COMMENTS);
  await redis.set(reviewMemoryKey(keys, repositoryId, pullNumber), JSON.stringify(ReviewMemory.parse({ ...memory, comments })), "EX", TTL_SECONDS);
}

/**
 * Reads the PR's memory, runs `update` and writes what it returns, under a lock per PR (two api
 * processes never interleave a read and a write of it). Returns what was written.
 */
export async function updateReviewMemory(
  redis: RedisClient,
  keys: RedisKeyspace,
  repositoryId: number,
  pullNumber: number,
  update: (memory: ReviewMemory) => Promise<ReviewMemory> | ReviewMemory,
): Promise<ReviewMemory> {
  return withRedisLock(redis, `${keys.ours}:lock:memory:${repositoryId}:${pullNumber}`, { ttlMs: 60_000, waitMs: 90_000 }, async () => {
    const next = await update(await readReviewMemory(redis, keys, repositoryId, pullNumber));
    await writeReviewMemory(redis, keys, repositoryId, pullNumber, next);
    return next;
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
