import type { Response } from "express";
import type { AppError } from "@reviewbot/core/errors";

/** The API's one error body: `{"error":{"code","message"}}` with the code's HTTP status. */
export function sendError(response: Response, error: AppError): void {
  if (response.headersSent) return;
  response.status(error.status).json({ error: { code: error.code, message: error.message } });
}
