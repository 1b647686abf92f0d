import { AppError } from "@reviewbot/core/errors";
import type { QueueSeal } from "./queue-seal.js";
import { parseReviewJob, type ReviewJob } from "@reviewbot/contracts/review-job";

/**
 * A review job as the api finds it in the queue: only if the api sealed it under this id, so
 * nothing a worker added or altered is ever acted on (docs/architecture.md, layer 4: workers are
 * untrusted clients of the api).
 *
 * @throws AppError `JOB_INVALID` when the seal is missing or wrong, or the data breaks the contract.
 */
export function openReviewJob(seal: QueueSeal, jobId: string, data: unknown): ReviewJob {
  return parseReviewJob(seal.open(jobId, data));
}

/**
 * A review job as a worker reads it, seal set aside unchecked (workers hold no key). Good for
 * logs, the PR lease and supersession checks; what the worker reviews is the api's answer to
 * its claim, never this.
 */
export function readReviewJob(data: unknown): ReviewJob {
  if (typeof data !== "object" || data === null) return parseReviewJob(data);
  const { mac, ...rest } = data as Record<string, unknown>;
  if (typeof mac !== "string") throw new AppError("JOB_INVALID", "review job (root): the api's seal is missing");
  return parseReviewJob(rest);
}
