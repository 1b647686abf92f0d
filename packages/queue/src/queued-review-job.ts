import { AppError } from "@reviewbot/core/errors";
import type { QueueSeal } from "./queue-seal.js";
import { parseReviewJob, type ReviewJob } from "@reviewbot/contracts/review-job";

/**
 * The most bytes a sealed review job takes in the queue (its hash's `data` field, JSON): every
 * field of the contract at its longest (255-character branches, a 140-character repository, a
 * 100-character delivery id, a reply) with the seal comes to under 1.5 KiB; the api reads no larger
 * `data` (a worker can write the field, and what is larger is not a job the api wrote).
 */
export const MAX_SEALED_JOB_BYTES = 4096;

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
