import type { Queue } from "bullmq";
import type { RequestHandler } from "express";
import { z } from "zod";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { parseReviewJob } from "@reviewbot/queue/review-job";
import { bearerToken } from "./bearer-token.js";
import { constantTimeEqual } from "./constant-time-equal.js";
import { readRawBody } from "./read-raw-body.js";
import { sendError } from "./send-error.js";

/** Mints an installation token restricted to one repository, read-only (packages/github). */
export type TokenMinter = (installationId: number, repositoryId: number) => Promise<{ token: string; expiresAt: string }>;

export interface TokenBrokerDeps {
  /** REVIEWBOT_WORKER_CREDENTIAL: the bearer secret workers present. */
  readonly credential: string;
  readonly reviews: Queue;
  readonly mint: TokenMinter;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
}

const TokenRequest = z.strictObject({ jobId: z.string().min(1).max(300) });
const MAX_BODY_BYTES = 4096;

/**
 * `POST /internal/token`: a worker holding the shared credential asks for a token for a job; only
 * a job that is ACTIVE in the review queue (being run right now) gets one, scoped to that job's
 * repository with read permissions. The token is registered with the scrubber before it is sent,
 * so it cannot reach a log line of this process.
 */
export function tokenBrokerHandler(deps: TokenBrokerDeps): RequestHandler {
  return async (request, response) => {
    response.setHeader("Cache-Control", "no-store");
    let jobId: string | undefined;
    try {
      const presented = bearerToken(request.headers);
      if (presented === undefined || !constantTimeEqual(presented, deps.credential)) {
        throw new AppError("UNAUTHENTICATED", "a valid worker credential is required");
      }
      jobId = parseRequest(await readRawBody(request, MAX_BODY_BYTES)).jobId;
      const job = await deps.reviews.getJob(jobId);
      const state = job === undefined ? "missing" : await job.getState();
      if (job === undefined || state !== "active") {
        throw new AppError("TOKEN_DENIED", "no active review job has this id", { details: { state } });
      }
      const review = parseReviewJob(job.data);
      const minted = await deps.mint(review.installationId, review.repositoryId);
      deps.scrubber.register(minted.token);
      deps.logger.info({ jobId, repositoryId: review.repositoryId, expiresAt: minted.expiresAt }, "repository token issued");
      response.status(200).json({ token: minted.token, expiresAt: minted.expiresAt });
    } catch (err) {
      const error = isAppError(err) ? err : new AppError("GITHUB_API_FAILED", "the token could not be minted", { cause: err });
      const fields = { jobId, code: error.code, remoteAddress: request.socket.remoteAddress };
      if (error.status >= 500) deps.logger.error({ ...fields, err: error }, "repository token refused");
      else deps.logger.warn({ ...fields, reason: error.message }, "repository token refused");
      sendError(response, error.code === "JOB_INVALID" ? new AppError("TOKEN_DENIED", "the job is not a valid review job") : error);
    }
  };
}

function parseRequest(raw: Buffer): z.infer<typeof TokenRequest> {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("REQUEST_INVALID", "the body must be JSON {\"jobId\": string}");
  }
  const parsed = TokenRequest.safeParse(json);
  if (!parsed.success) throw new AppError("REQUEST_INVALID", "the body must be JSON {\"jobId\": string}");
  return parsed.data;
}
