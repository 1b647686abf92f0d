import type { Queue } from "bullmq";
import type { RedisClient } from "./redis-client.js";
import { AppError } from "@reviewbot/core/errors";
import type { QueueSeal } from "./queue-seal.js";
import { parseReviewJob, type ReviewJob } from "@reviewbot/contracts/review-job";

/**
 * The most bytes a sealed review job takes in the queue (its hash's `data` field, JSON): every
 * field of the contract at its longest (255-character branches, a 140-character repository, a
 * 100-character delivery id, a reply, 100 labels of 50 characters that escape to the most bytes)
 * with the seal comes to under 32 KiB; the api reads no larger
 * `data` (a worker can write the field, and what is larger is not a job the api wrote).
 */
export const MAX_SEALED_JOB_BYTES = 32_768;

// Reads the job's data only if it is no larger than a job the api writes (checked with HSTRLEN
// before a byte is sent or parsed), in one step so the data cannot grow between check and read.
const READ_SCRIPT = `
local size = redis.call('HSTRLEN', KEYS[1], 'data')
if size == 0 then return {'none', ''} end
if size > tonumber(ARGV[1]) then return {'oversized', tostring(size)} end
return {'ok', redis.call('HGET', KEYS[1], 'data')}`;

/** A queued job's data as {@link readQueuedJobData} found it. */
export type QueuedJobData =
  | { readonly kind: "none" }
  | { readonly kind: "oversized"; readonly bytes: number }
  | { readonly kind: "unreadable" }
  | { readonly kind: "ok"; readonly data: unknown };

/**
 * A queued review job's `data`, read without BullMQ's job parser: a worker's Redis user can write
 * the job's hash, so the field is measured before it is read ({@link MAX_SEALED_JOB_BYTES}), and
 * nothing else of the hash is parsed.
 */
export async function readQueuedJobData(redis: RedisClient, reviews: Queue, jobId: string): Promise<QueuedJobData> {
  const [state, value] = (await redis.eval(READ_SCRIPT, 1, reviews.toKey(jobId), MAX_SEALED_JOB_BYTES)) as [string, string];
  if (state === "none") return { kind: "none" };
  if (state === "oversized") return { kind: "oversized", bytes: Number(value) };
  try {
    return { kind: "ok", data: JSON.parse(value) as unknown };
  } catch {
    return { kind: "unreadable" };
  }
}

/**
 * A review job as the api finds it in the queue: only if the api sealed it under this id, so
 * nothing a worker added or altered is ever acted on (docs/architecture.md, layer 4: workers are
 * untrusted clients of the api).
 *
 * Returns the job and when it was sealed (null: before seals carried the time).
 *
 * @throws AppError `JOB_INVALID` when the seal is missing or wrong, or the data breaks the contract.
 */
export function openReviewJob(seal: QueueSeal, jobId: string, data: unknown): { readonly job: ReviewJob; readonly sealedAt: number | null } {
  const opened = seal.open(jobId, data);
  return { job: parseReviewJob(opened.data), sealedAt: opened.sealedAt };
}

/** What the seal adds to a job's data (queue-seal.ts). */
const SEAL_FIELDS = new Set(["mac", "sealedAt"]);

/**
 * A review job as a worker reads it, seal set aside unchecked (workers hold no key). Good for
 * logs, the PR lease and supersession checks; what the worker reviews is the api's answer to
 * its claim, never this.
 */
export function readReviewJob(data: unknown): ReviewJob {
  if (typeof data !== "object" || data === null) return parseReviewJob(data);
  const fields = data as Record<string, unknown>;
  if (typeof fields.mac !== "string") throw new AppError("JOB_INVALID", "review job (root): the api's seal is missing");
  return parseReviewJob(Object.fromEntries(Object.entries(fields).filter(([key]) => !SEAL_FIELDS.has(key))));
}
