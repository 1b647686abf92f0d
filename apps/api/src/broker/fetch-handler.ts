import type { RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import { FetchRequest, type FetchResponse } from "@reviewbot/contracts/worker-protocol";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";

/** Fetches a URL for the model under the operator's allowlist (packages/llm fetch-allowlisted). */
export type UrlFetcher = (url: string, signal: AbortSignal) => Promise<FetchResponse>;

export interface FetchHandlerDeps extends WorkerRouteDeps {
  /** Null when the operator allowlisted no host: every fetch is refused. */
  readonly fetcher: UrlFetcher | null;
}

const ROUTE = { name: "fetch", schema: FetchRequest, maxBytes: 4096, purpose: "use", noStore: true } as const;

/**
 * `POST /internal/jobs/fetch`: the model's `fetch_url`, performed here so that neither the worker
 * nor the model chooses where a request goes: only for a job the caller claimed, never for a
 * private repository (a URL could carry its code out), and only to the operator's hosts.
 */
export function fetchHandler(deps: FetchHandlerDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, job, signal, fields, response }) => {
    if (deps.fetcher === null) throw new AppError("POLICY_DENIED", "fetch_url is off: the operator allowlisted no host (REVIEWBOT_LLM_FETCH_HOSTS)");
    if (job.repositoryPrivate) throw new AppError("POLICY_DENIED", "fetch_url is off for private repositories");
    const fetched = await deps.fetcher(body.url, signal);
    deps.logger.info({ ...fields, status: fetched.status, bytes: fetched.text.length, truncated: fetched.truncated }, "url fetched for the model");
    response.status(200).json(fetched);
  });
}
