import type { Response } from "express";
import type { AppError } from "@reviewbot/core/errors";

/**
 * The API's one error body: `{"error":{"code","message"}}` with the code's HTTP status. An
 * INTERNAL error is a bug: its message may say what the caller must not learn, so it is not sent.
 */
export function sendError(response: Response, error: AppError): void {
  if (response.headersSent) return;
  const message = error.code === "INTERNAL" ? "internal error" : error.message;
  response.status(error.status).json({ error: { code: error.code, message } });
}
