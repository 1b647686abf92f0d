import type { RequestHandler } from "express";
import type { Logger } from "@reviewbot/core/logger";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";
import type { ReviewJob } from "@reviewbot/queue/review-job";
import { AiCacheRequest, MAX_AI_CACHE_BYTES, type AiCacheResponse } from "@reviewbot/queue/worker-protocol";
import { authorizeJobCall, type JobAuthorityDeps } from "./job-authority.js";
import { readWorkerRequest, refuseWorkerRequest } from "./worker-request.js";
import type { WorkerRegistry } from "./worker-registry.js";

/** A head's chunk results outlive a stalled or retried job, not the PR's next push by much. */
const TTL_SECONDS = 24 * 3600;

export interface AiCacheHandlerDeps extends JobAuthorityDeps {
  readonly registry: WorkerRegistry;
  readonly logger: Logger;
}

/**
 * `POST /internal/jobs/ai-cache`: the AI review's validated chunk results, so a retried job does
 * not pay for the same chunk twice. Entries live in api-only keys namespaced by the sealed job's
 * repository, PR and head: a worker reads and writes only its own job's, whatever key it names.
 * The first result stored under a key stays. What comes back is as untrusted as what went in:
 * the worker validates it like a fresh answer.
 */
export function aiCacheHandler(deps: AiCacheHandlerDeps): RequestHandler {
  return async (request, response) => {
    response.setHeader("Cache-Control", "no-store");
    const fields: Record<string, unknown> = { route: "ai-cache", remoteAddress: request.socket.remoteAddress };
    try {
      const { worker, body } = await readWorkerRequest(request, deps.registry, AiCacheRequest, MAX_AI_CACHE_BYTES + 4096);
      Object.assign(fields, { worker, jobId: body.jobId, op: body.op });
      const { job } = await authorizeJobCall(deps, { worker, jobId: body.jobId, lockToken: body.lockToken, purpose: "use" });
      const key = cacheKey(job, body.key);
      let answer: AiCacheResponse;
      if (body.op === "put") {
        await deps.redis.set(key, JSON.stringify(body.result), "EX", TTL_SECONDS, "NX");
        answer = { result: null };
      } else {
        const stored = await deps.redis.get(key);
        answer = { result: stored === null ? null : (JSON.parse(stored) as unknown) };
      }
      response.status(200).json(answer);
    } catch (err) {
      refuseWorkerRequest(response, err, fields, deps.logger);
    }
  };
}

function cacheKey(job: ReviewJob, key: string): string {
  return `${KEY_PREFIX}:ai:${job.repositoryId}:${job.pullNumber}:${job.headSha}:${key}`;
}

