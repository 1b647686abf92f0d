import type { AppError } from "@reviewbot/core/errors";

/** How long to wait when the api says `Retry-After`, and when it says nothing usable. */
export interface WaitBounds {
  readonly min: number;
  readonly max: number;
  readonly otherwise: number;
}

/** The api's `Retry-After` of a busy answer (`details.retryAfterMs`), within bounds: a wrong header neither parks work for hours nor spins it. */
export function apiRetryAfterMs(err: AppError, bounds: WaitBounds): number {
  const said = err.details.retryAfterMs;
  if (typeof said !== "number" || !Number.isFinite(said)) return bounds.otherwise;
  return Math.min(Math.max(said, bounds.min), bounds.max);
}
