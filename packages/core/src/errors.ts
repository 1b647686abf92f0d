import { z } from "zod";

/**
 * The error catalogue: every failure reviewbot reports has one code here, with the HTTP status the
 * API maps it to and whether a worker should retry the job. Documented in docs/errors.md; a test
 * keeps the two in step.
 */
interface ErrorSpec {
  readonly status: number;
  readonly retryable: boolean;
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  CONFIG_INVALID: { status: 500, retryable: false, summary: "operator configuration is invalid" },
  REPO_CONFIG_INVALID: { status: 422, retryable: false, summary: "the repository's .ai/ configuration is invalid" },
  POLICY_DENIED: { status: 403, retryable: false, summary: "a security policy rule refused the request" },
  GIT_FAILED: { status: 502, retryable: true, summary: "a git command failed" },
  GIT_TIMEOUT: { status: 504, retryable: true, summary: "a git command exceeded its deadline" },
  REPO_NOT_FOUND: { status: 404, retryable: false, summary: "the repository does not exist or cannot be read" },
  REF_NOT_FOUND: { status: 404, retryable: false, summary: "a ref or commit could not be fetched" },
  HEAD_SHA_MISMATCH: { status: 409, retryable: false, summary: "the fetched head is not the commit the job names" },
  CHECKOUT_TOO_LARGE: { status: 413, retryable: false, summary: "the tree exceeds the checkout size limits" },
  LOCK_TIMEOUT: { status: 503, retryable: true, summary: "a clone-cache lock could not be acquired in time" },
  SANDBOX_UNAVAILABLE: { status: 503, retryable: true, summary: "no sandbox engine can run the helper safely" },
  IMAGE_MISSING: { status: 500, retryable: false, summary: "the helper's image is not on this worker's sandbox engine" },
  USAGE: { status: 400, retryable: false, summary: "the command line is invalid" },
  BODY_TOO_LARGE: { status: 413, retryable: false, summary: "the request body exceeds the size limit" },
  BODY_UNREADABLE: { status: 400, retryable: false, summary: "the request body could not be read" },
  BODY_TOO_SLOW: { status: 408, retryable: false, summary: "the request body arrived too slowly" },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, retryable: false, summary: "the webhook signature is missing or wrong" },
  WEBHOOK_TOO_LARGE: { status: 413, retryable: false, summary: "the webhook body exceeds the size limit" },
  WEBHOOK_CONTENT_TYPE: { status: 415, retryable: false, summary: "the webhook body is not application/json" },
  WEBHOOK_MALFORMED: { status: 400, retryable: false, summary: "the webhook body or headers are malformed" },
  WEBHOOK_TOO_SLOW: { status: 408, retryable: false, summary: "the webhook body arrived too slowly" },
  WEBHOOK_BUSY: { status: 503, retryable: true, summary: "too many webhook bodies are being read at once" },
  QUEUE_UNAVAILABLE: { status: 503, retryable: true, summary: "Redis did not accept the job in time" },
  JOB_INVALID: { status: 422, retryable: false, summary: "a queued job does not match its contract" },
  UNAUTHENTICATED: { status: 401, retryable: false, summary: "the request carries no valid credential" },
  REQUEST_INVALID: { status: 400, retryable: false, summary: "an API request body or header is malformed" },
  JOB_NOT_HELD: { status: 403, retryable: false, summary: "the caller holds no live job the api created with this id" },
  API_UNAVAILABLE: { status: 503, retryable: true, summary: "a worker could not reach the api, or got no usable answer" },
  OUTCOME_RECORDED: { status: 409, retryable: false, summary: "the job's outcome was already recorded as something else" },
  GITHUB_API_FAILED: { status: 502, retryable: true, summary: "a GitHub API call failed" },
  REVIEW_CANCELLED: { status: 409, retryable: false, summary: "a newer head superseded the review" },
  REVIEW_TIMEOUT: { status: 504, retryable: false, summary: "the review ran past its wall-clock deadline" },
  INSTALLATION_BUSY: { status: 429, retryable: true, summary: "the installation runs as many reviews as the api allows: retry later" },
  LLM_UNAVAILABLE: { status: 502, retryable: true, summary: "the model endpoint failed or was unreachable after retries" },
  LLM_REFUSED: { status: 502, retryable: false, summary: "the model endpoint refused the request (4xx other than 429)" },
  LLM_RESPONSE_INVALID: { status: 502, retryable: true, summary: "the model endpoint answered with a body that does not match its protocol" },
  LLM_BUDGET_EXCEEDED: { status: 429, retryable: false, summary: "a token or spend cap of the job or the installation is used up" },
  LLM_BUSY: { status: 429, retryable: true, summary: "the job already has a model call in flight, or its installation as many as the api allows: retry later" },
  FETCH_FAILED: { status: 502, retryable: true, summary: "an allowlisted page the model asked for could not be fetched" },
  NOT_FOUND: { status: 404, retryable: false, summary: "the API has no such route" },
  INTERNAL: { status: 500, retryable: true, summary: "an unexpected error (a bug): retried, then reported" },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A code read from across a process boundary (a queue entry, a worker's report): the catalogue's, or refused. */
export const ErrorCode = z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]);

export interface AppErrorOptions {
  readonly cause?: unknown;
  /** Structured, non-secret context for logs and reports. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const spec = ERROR_CATALOGUE[code];
    this.code = code;
    this.status = spec.status;
    this.retryable = spec.retryable;
    this.details = Object.freeze({ ...options.details });
  }
}

/**
 * Recognises an AppError by name and code as well as by prototype, so errors that crossed a
 * package copy or a structured clone are still classified (as BullMQ does for its own errors).
 */
export function isAppError(value: unknown): value is AppError {
  if (value instanceof AppError) return true;
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { name?: unknown; code?: unknown };
  return candidate.name === "AppError" && typeof candidate.code === "string" && Object.hasOwn(ERROR_CATALOGUE, candidate.code);
}
