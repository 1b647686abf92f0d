import type { RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { FetchRequest, type FetchResponse } from "@reviewbot/queue/worker-protocol";
import { authorizeJobCall, type JobAuthorityDeps } from "./job-authority.js";
import { readWorkerRequest, refuseWorkerRequest } from "./worker-request.js";
import type { WorkerRegistry } from "./worker-registry.js";

/** Fetches a URL for the model under the operator's allowlist (packages/llm fetch-allowlisted). */
export type UrlFetcher = (url: string, signal: AbortSignal) => Promise<FetchResponse>;

export interface FetchHandlerDeps extends JobAuthorityDeps {
  readonly registry: WorkerRegistry;
  /** Null when the operator allowlisted no host: every fetch is refused. */
  readonly fetcher: UrlFetcher | null;
  readonly logger: Logger;
}

/**
 * `POST /internal/jobs/fetch`: the model's `fetch_url`, performed here so that neither the worker
 * nor the model chooses where a request goes: only for a job the caller claimed, never for a
 * private repository (a URL could carry its code out), and only to the operator's hosts.
 */
export function fetchHandler(deps: FetchHandlerDeps): RequestHandler {
  return async (request, response) => {
    response.setHeader("Cache-Control", "no-store");
    const fields: Record<string, unknown> = { route: "fetch", remoteAddress: request.socket.remoteAddress };
    const gone = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) gone.abort(new Error("the worker closed the connection"));
    });
    try {
      const { worker, body } = await readWorkerRequest(request, deps.registry, FetchRequest, 4096);
      Object.assign(fields, { worker, jobId: body.jobId });
      const { job } = await authorizeJobCall(deps, { worker, jobId: body.jobId, lockToken: body.lockToken, purpose: "use" });
      if (deps.fetcher === null) throw new AppError("POLICY_DENIED", "fetch_url is off: the operator allowlisted no host (REVIEWBOT_LLM_FETCH_HOSTS)");
      if (job.repositoryPrivate) throw new AppError("POLICY_DENIED", "fetch_url is off for private repositories");
      const fetched = await deps.fetcher(body.url, gone.signal);
      deps.logger.info({ ...fields, status: fetched.status, bytes: fetched.text.length, truncated: fetched.truncated }, "url fetched for the model");
      response.status(200).json(fetched);
    } catch (err) {
      // A cancelled or timed-out review hangs up on its fetch: news, not a fault, and no one to answer.
      if (gone.signal.aborted && err === gone.signal.reason) deps.logger.info(fields, "fetch abandoned: the worker went away");
      else refuseWorkerRequest(response, err, fields, deps.logger);
    }
  };
}
