import { createHash } from "node:crypto";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import { endLiveJobs } from "@reviewbot/queue/live-job-record";
import type { JobOutcome } from "@reviewbot/contracts/worker-protocol";
import { outcomeKey } from "./job-authority.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** Outcomes are remembered as long as failed review jobs are kept (REVIEW_JOB_OPTIONS). */
const OUTCOME_TTL_MS = 14 * 24 * 3600 * 1000;

/**
 * Records a job's outcome once, and ends the api's record of the job as live: the first report
 * wins. The same report again (a worker retrying a call whose answer it lost) is a `duplicate`,
 * published again idempotently; any other report for the job is refused, so a worker cannot
 * replace a published result with another.
 *
 * @throws AppError `OUTCOME_RECORDED` when a different outcome was recorded first.
 */
export async function recordOutcome(redis: RedisClient, keys: RedisKeyspace, jobId: string, outcome: JobOutcome): Promise<"recorded" | "duplicate"> {
  const digest = `${outcome.kind}:${createHash("sha256").update(JSON.stringify(outcome)).digest("hex")}`;
  const key = outcomeKey(keys, jobId);
  if ((await redis.set(key, digest, "PX", OUTCOME_TTL_MS, "NX")) === "OK") {
    // The job is over for the api: once this key expires too, a saved copy put back is still refused.
    await endLiveJobs(redis, keys, [jobId]);
    return "recorded";
  }
  const first = await redis.get(key);
  if (first === digest) return "duplicate";
  throw new AppError("OUTCOME_RECORDED", `the job's outcome was already recorded (${(first ?? "").split(":", 1)[0] ?? ""})`);
}
