import type { RequestHandler, Response } from "express";
import type { z } from "zod";
import type { Logger } from "@reviewbot/core/logger";
import { authorizeJobCall, type HeldJob, type JobAuthorityDeps } from "./job-authority.js";
import { readWorkerRequest, refuseWorkerRequest } from "./worker-request.js";
import type { WorkerRegistry } from "./worker-registry.js";

export interface WorkerRouteDeps extends JobAuthorityDeps {
  readonly registry: WorkerRegistry;
  readonly logger: Logger;
}

/** What a worker route is: its name in logs, its body, and what the job authority checks it for. */
export interface WorkerRouteSpec<S extends z.ZodType<{ readonly jobId: string; readonly lockToken: string }>> {
  readonly name: string;
  readonly schema: S;
  readonly maxBytes: number;
  /** `claim` binds the job's lock, `report` may follow an ended job, `use` needs a claim (job-authority). */
  readonly purpose: "claim" | "report" | "use";
  /**
   * Answers carry `Cache-Control: no-store`. A claim carries a token and the `use` routes the
   * model's words; the report's answer never carried the header, and adding it is a change of
   * behaviour, not of structure.
   */
  readonly noStore: boolean;
  /** Fields of the body its log lines name besides the job (the report's outcome kind). */
  readonly logFields?: (body: z.infer<S>) => Readonly<Record<string, unknown>>;
}

/** One authorised call of a worker route. */
export interface WorkerCall<T> extends HeldJob {
  readonly body: T;
  /** Aborts when the worker hangs up: the route's own upstream work stops with it. */
  readonly signal: AbortSignal;
  /** Fields for the route's log lines (route, worker, job, installation). */
  readonly fields: Record<string, unknown>;
  readonly response: Response;
}

/**
 * The one prelude of the five routes under `/internal/jobs/*`: the worker's credential, then a
 * bounded body held to the route's strict schema, then the job authority's check for the route's
 * purpose (the api sealed the job, it is active, the caller holds its lock) before `handle` runs
 * with the job as the api sealed it. Refusals are answered and logged once; a worker that hung up
 * (a cancelled or timed-out review) is news, not a fault, and no one to answer.
 */
export function workerRoute<S extends z.ZodType<{ readonly jobId: string; readonly lockToken: string }>>(
  deps: WorkerRouteDeps,
  route: WorkerRouteSpec<S>,
  handle: (call: WorkerCall<z.infer<S>>) => Promise<void>,
): RequestHandler {
  return async (request, response) => {
    if (route.noStore) response.setHeader("Cache-Control", "no-store");
    const fields: Record<string, unknown> = { route: route.name, remoteAddress: request.socket.remoteAddress };
    const gone = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) gone.abort(new Error("the worker closed the connection"));
    });
    try {
      const { worker, body } = await readWorkerRequest(request, deps.registry, route.schema, route.maxBytes);
      Object.assign(fields, { worker, jobId: body.jobId }, route.logFields?.(body));
      const held = await authorizeJobCall(deps, { worker, jobId: body.jobId, lockToken: body.lockToken, purpose: route.purpose });
      Object.assign(fields, { installationId: held.job.installationId });
      await handle({ ...held, body, signal: gone.signal, fields, response });
    } catch (err) {
      if (gone.signal.aborted && err === gone.signal.reason) deps.logger.info(fields, `${route.name} call abandoned: the worker went away`);
      else refuseWorkerRequest(response, err, fields, deps.logger);
    }
  };
}
