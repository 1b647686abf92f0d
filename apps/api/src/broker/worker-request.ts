import type { Request, Response } from "express";
import type { z } from "zod";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import { bearerToken } from "../http-kit/bearer-token.js";
import { readRawBody } from "../http-kit/read-raw-body.js";
import { rejectRequest } from "../http-kit/reject-request.js";
import type { WorkerRegistry } from "./worker-registry.js";

/**
 * Reads a worker's request: its credential first (nothing is read for an unknown caller), then a
 * bounded JSON body checked against the route's strict schema.
 *
 * @throws AppError `UNAUTHENTICATED`, `BODY_TOO_LARGE`, `BODY_UNREADABLE` or `REQUEST_INVALID` naming the field.
 */
export async function readWorkerRequest<T extends z.ZodType>(
  request: Request,
  registry: WorkerRegistry,
  schema: T,
  maxBytes: number,
): Promise<{ worker: string; body: z.infer<T> }> {
  const worker = registry.authenticate(bearerToken(request.headers));
  if (worker === null) throw new AppError("UNAUTHENTICATED", "a worker credential listed in REVIEWBOT_WORKERS_FILE is required");
  const raw = await readRawBody(request, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("REQUEST_INVALID", "the body is not JSON");
  }
  return { worker, body: parseOrThrow(schema, json, "REQUEST_INVALID") };
}

/**
 * Answers a refused worker request with its code, logged once: a refusal is what an attacker
 * holding a worker host sees, so each one is a warning with who asked for what (a busy
 * installation or model call, the cap working rather than a worker misbehaving, is only news).
 */
export function refuseWorkerRequest(response: Response, err: unknown, fields: Record<string, unknown>, logger: Logger): void {
  rejectRequest(response, err, {
    logger,
    fields,
    refused: "worker request refused",
    failed: "worker request failed",
    deferred: isAppError(err) && err.code === "LLM_BUSY" ? "model call deferred: busy" : "claim deferred: installation busy",
  });
}
