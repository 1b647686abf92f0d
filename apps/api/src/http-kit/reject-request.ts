import type { Response } from "express";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { sendError } from "./send-error.js";

/** Where and how a kind of route logs its refusals: static messages, the request in `fields`. */
export interface RejectionLog {
  readonly logger: Logger;
  /** Names the request (route, delivery, worker, job); the error's code and details are added. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** A refusal of the caller (4xx), logged as a warning with its reason. */
  readonly refused: string;
  /** A failure of ours (5xx), logged as an error with `err`; `refused` when not given. */
  readonly failed?: string;
  /** A retryable refusal (a cap doing its job: come back later), logged as info; `refused` when not given. */
  readonly deferred?: string;
}

/** What an error that is no AppError becomes: a bug, answered without its message. */
function internalError(err: unknown): AppError {
  return new AppError("INTERNAL", "internal error", { cause: err });
}

/**
 * The api's one way to answer a request that failed: `err` as an AppError (`unexpected` turns any
 * other error into one, INTERNAL unless the route knows better), logged once, answered with the
 * catalogue's status and the one error body (never an INTERNAL error's own message), with
 * `Retry-After` when the error says when to come back and `Connection: close` when the body was
 * refused unread (too large, or too many being read).
 *
 * @returns the error answered, for the route's metrics.
 */
export function rejectRequest(response: Response, err: unknown, log: RejectionLog, unexpected = internalError): AppError {
  const error = isAppError(err) ? err : unexpected(err);
  const context = { ...log.fields, code: error.code, ...error.details };
  if (error.status >= 500) log.logger.error({ ...context, err }, log.failed ?? log.refused);
  else if (error.retryable) log.logger.info(context, log.deferred ?? log.refused);
  else log.logger.warn({ ...context, reason: error.message }, log.refused);
  if (response.headersSent) return error;
  if (error.code === "BODY_TOO_LARGE" || error.code === "WEBHOOK_TOO_LARGE" || error.code === "WEBHOOK_BUSY" || error.code === "WEBHOOK_TOO_SLOW")
    response.setHeader("Connection", "close");
  const retryAfterMs = error.details.retryAfterMs;
  if (typeof retryAfterMs === "number") response.setHeader("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  sendError(response, error);
  return error;
}
