import type { RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { AiCacheRequest, MAX_AI_CACHE_BYTES, type AiCacheResponse } from "@reviewbot/contracts/worker-protocol";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";

/** A job's chunk results outlive a stalled or retried attempt of it. */
const TTL_SECONDS = 24 * 3600;
/** Chunks of one job with results kept: a 1,000-file PR plans a few dozen; more is a worker misbehaving. */
const MAX_ENTRIES_PER_JOB = 200;

const ROUTE = { name: "ai-cache", schema: AiCacheRequest, maxBytes: MAX_AI_CACHE_BYTES + 4096, purpose: "use", noStore: true } as const;

/**
 * `POST /internal/jobs/ai-cache`: the AI review's validated chunk results, so a retried attempt of
 * a job does not pay for the same chunk twice. Entries live in api-only keys namespaced by the
 * sealed job's id: a worker reads and writes only its own job's, whatever key it names. Not by PR
 * and head: what one worker stored there would be read by the next job of that head (a `/review`,
 * a re-run) without the model being asked, so a lying worker would write another job's review.
 * The first result stored under a key stays. What comes back is as untrusted as what went in:
 * the worker validates it like a fresh answer. A job keeps at most {@link MAX_ENTRIES_PER_JOB}
 * entries, so a worker cannot fill the api's Redis with them.
 */
export function aiCacheHandler(deps: WorkerRouteDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, response }) => {
    const key = cacheKey(deps.keys, body.jobId, body.key);
    let answer: AiCacheResponse;
    if (body.op === "put") {
      const count = countKey(deps.keys, body.jobId);
      const [[, stored] = []] = (await deps.redis.multi().incr(count).expire(count, TTL_SECONDS).exec()) ?? [];
      if (Number(stored) > MAX_ENTRIES_PER_JOB) throw new AppError("POLICY_DENIED", `the AI cache keeps at most ${MAX_ENTRIES_PER_JOB} results per job`);
      await deps.redis.set(key, JSON.stringify(body.result), "EX", TTL_SECONDS, "NX");
      answer = { result: null };
    } else {
      const stored = await deps.redis.get(key);
      answer = { result: stored === null ? null : (JSON.parse(stored) as unknown) };
    }
    response.status(200).json(answer);
  });
}

// The job id is the api's (authorised against the sealed job and its lock before this runs).
function cacheKey(keys: RedisKeyspace, jobId: string, key: string): string {
  return `${keys.ours}:ai:${jobId}:${key}`;
}

function countKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:ai-count:${jobId}`;
}
