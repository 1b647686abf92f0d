import { KEY_PREFIX } from "@reviewbot/queue/queue-names";
import type { Redis } from "ioredis";

/** What reviewbot remembers about the check run of one head, shared by every api process. */
export interface CheckRunState {
  readonly id: number | null;
  readonly status: "in_progress" | "completed" | null;
  /** The review job whose result is being published: batches belong to it alone. */
  readonly jobId: string | null;
  /** Annotation batches of `jobId`'s result already sent. */
  readonly batches: number;
}

/** State lives a week: long enough for any retry, short enough not to pile up. */
const STATE_TTL_SECONDS = 7 * 24 * 3600;

export function checkRunStateKey(repositoryId: number, reviewJobId: string): string {
  return `${KEY_PREFIX}:check-run:${repositoryId}:${reviewJobId}`;
}

/** Reads the state hash; a missing hash is the empty state. */
export async function readCheckRunState(redis: Redis, key: string): Promise<CheckRunState> {
  const hash = await redis.hgetall(key);
  const id = Number(hash.id);
  return {
    id: Number.isSafeInteger(id) && id > 0 ? id : null,
    status: hash.status === "in_progress" || hash.status === "completed" ? hash.status : null,
    jobId: hash.jobId ?? null,
    batches: Number(hash.batches ?? 0) || 0,
  };
}

/** Writes some fields of the state hash and renews its expiry. */
export async function writeCheckRunState(redis: Redis, key: string, fields: Record<string, string | number>): Promise<void> {
  await redis.multi().hset(key, fields).expire(key, STATE_TTL_SECONDS).exec();
}

/**
 * Makes `jobId` the publisher of this check run's result unless another job already is; returns
 * the job that owns it. One owner per head keeps two results' batches from interleaving.
 */
export async function claimCheckRunPublication(redis: Redis, key: string, jobId: string): Promise<string> {
  await redis.hsetnx(key, "jobId", jobId);
  await redis.expire(key, STATE_TTL_SECONDS);
  return (await redis.hget(key, "jobId")) ?? jobId;
}
