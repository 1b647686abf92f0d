import type { RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { AiCacheRequest, MAX_AI_CACHE_BYTES, type AiCacheResponse } from "@reviewbot/contracts/worker-protocol";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";

/** A head's chunk results outlive a stalled or retried job, not the PR's next push by much. */
const TTL_SECONDS = 24 * 3600;
/** Chunks of one head with results kept: a 1,000-file PR plans a few dozen; more is a worker misbehaving. */
const MAX_ENTRIES_PER_HEAD = 200;

const ROUTE = { name: "ai-cache", schema: AiCacheRequest, maxBytes: MAX_AI_CACHE_BYTES + 4096, purpose: "use", noStore: true } as const;

/**
 * `POST /internal/jobs/ai-cache`: the AI review's validated chunk results, so a retried job does
 * not pay for the same chunk twice. Entries live in api-only keys namespaced by the sealed job's
 * repository, PR and head: a worker reads and writes only its own job's, whatever key it names.
 * The first result stored under a key stays. What comes back is as untrusted as what went in:
 * the worker validates it like a fresh answer. A head keeps at most {@link MAX_ENTRIES_PER_HEAD}
 * entries, so a worker cannot fill the api's Redis with them.
 */
export function aiCacheHandler(deps: WorkerRouteDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, job, response }) => {
    const key = cacheKey(job, body.key);
    let answer: AiCacheResponse;
    if (body.op === "put") {
      const count = countKey(job);
      const [[, stored] = []] = (await deps.redis.multi().incr(count).expire(count, TTL_SECONDS).exec()) ?? [];
      if (Number(stored) > MAX_ENTRIES_PER_HEAD) throw new AppError("POLICY_DENIED", `the AI cache keeps at most ${MAX_ENTRIES_PER_HEAD} results per PR head`);
      await deps.redis.set(key, JSON.stringify(body.result), "EX", TTL_SECONDS, "NX");
      answer = { result: null };
    } else {
      const stored = await deps.redis.get(key);
      answer = { result: stored === null ? null : (JSON.parse(stored) as unknown) };
    }
    response.status(200).json(answer);
  });
}

function cacheKey(job: ReviewJob, key: string): string {
  return `${KEY_PREFIX}:ai:${job.repositoryId}:${job.pullNumber}:${job.headSha}:${key}`;
}

function countKey(job: ReviewJob): string {
  return `${KEY_PREFIX}:ai-count:${job.repositoryId}:${job.pullNumber}:${job.headSha}`;
}
