import type { RequestHandler, Response } from "express";
import type { z } from "zod";
import type { Logger } from "@reviewbot/core/logger";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { authorizeJobCall, type JobAuthorityDeps } from "./job-authority.js";
import { readWorkerRequest, refuseWorkerRequest } from "./worker-request.js";
import type { WorkerRegistry } from "./worker-registry.js";

export interface JobUseDeps extends JobAuthorityDeps {
  readonly registry: WorkerRegistry;
  readonly logger: Logger;
}

/** One authorised call of a route a worker uses while it runs a job (the model, a fetch, the AI cache). */
export interface JobUseCall<T> {
  readonly body: T;
  /** The job as the api sealed it: repository, installation, PR and head come only from here. */
  readonly job: ReviewJob;
  /** Aborts when the worker hangs up: the route's own upstream work stops with it. */
  readonly signal: AbortSignal;
  /** Fields for the route's log lines (route, worker, job, installation). */
  readonly fields: Record<string, unknown>;
  readonly response: Response;
}

/**
 * A worker route used during a job: the worker's credential, then a bounded body held to the
 * route's strict schema, then the job authority's `use` check (this worker claimed this job under
 * this lock, and it has not ended) before `handle` runs. Refusals are answered and logged once; a
 * worker that hung up (a cancelled or timed-out review) is news, not a fault, and no one to answer.
 */
export function jobUseRoute<S extends z.ZodType<{ readonly jobId: string; readonly lockToken: string }>>(
  deps: JobUseDeps,
  route: { readonly name: string; readonly schema: S; readonly maxBytes: number },
  handle: (call: JobUseCall<z.infer<S>>) => Promise<void>,
): RequestHandler {
  return async (request, response) => {
    response.setHeader("Cache-Control", "no-store");
    const fields: Record<string, unknown> = { route: route.name, remoteAddress: request.socket.remoteAddress };
    const gone = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) gone.abort(new Error("the worker closed the connection"));
    });
    try {
      const { worker, body } = await readWorkerRequest(request, deps.registry, route.schema, route.maxBytes);
      Object.assign(fields, { worker, jobId: body.jobId });
      const { job } = await authorizeJobCall(deps, { worker, jobId: body.jobId, lockToken: body.lockToken, purpose: "use" });
      Object.assign(fields, { installationId: job.installationId });
      await handle({ body, job, signal: gone.signal, fields, response });
    } catch (err) {
      if (gone.signal.aborted && err === gone.signal.reason) deps.logger.info(fields, `${route.name} call abandoned: the worker went away`);
      else refuseWorkerRequest(response, err, fields, deps.logger);
    }
  };
}
