import type { Response } from "express";
import type { AppError, ErrorCode } from "@reviewbot/core/errors";

/** The API's one error body: a code of the catalogue, never another string. */
export interface ErrorBody {
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

/**
 * Answers `error` in the API's one error body with the code's HTTP status. An INTERNAL error is a
 * bug: its message may say what the caller must not learn, so it is not sent.
 */
export function sendError(response: Response, error: AppError): void {
  if (response.headersSent) return;
  const body: ErrorBody = { error: { code: error.code, message: error.code === "INTERNAL" ? "internal error" : error.message } };
  response.status(error.status).json(body);
}
