import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { Queue } from "bullmq";
import { Router, type RequestHandler } from "express";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { hasBasicCredentials, type BasicCredentials } from "../http-kit/basic-auth.js";
import { isSameOriginRequest } from "../http-kit/same-origin.js";
import { sendError, type ErrorBody } from "../http-kit/send-error.js";

/** Where the dashboard lives; the router is mounted on `/admin`. */
export const DASHBOARD_PATH = "/admin/queues";

/**
 * bull-board for both queues, behind HTTP Basic auth (constant-time), a same-origin check on
 * every state-changing request (retry, remove, pause are one click away), and headers that keep
 * it out of frames and caches. Mount under `/admin`.
 */
export function dashboardRouter(queues: readonly Queue[], credentials: BasicCredentials, logger: Logger): Router {
  const board = new ExpressAdapter();
  board.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter: board });
  const router = Router();
  router.use(securityHeaders);
  router.use((request, response, next) => {
    if (!hasBasicCredentials(request.headers, credentials)) {
      logger.warn({ path: request.path, remoteAddress: request.socket.remoteAddress }, "dashboard authentication failed");
      response.setHeader("WWW-Authenticate", 'Basic realm="reviewbot", charset="UTF-8"');
      sendError(response, new AppError("UNAUTHENTICATED", "dashboard credentials are required"));
      return;
    }
    if (!isSameOriginRequest(request.method, request.headers)) {
      logger.warn({ method: request.method, path: request.path, origin: request.headers.origin?.slice(0, 200) }, "dashboard cross-origin request refused");
      sendError(response, new AppError("POLICY_DENIED", "state-changing dashboard requests must come from the dashboard's own origin"));
      return;
    }
    next();
  });
  router.use("/queues", board.getRouter() as RequestHandler);
  return router;
}

/** Answers every /admin request when no password is configured: the dashboard is off, never open. */
export const dashboardDisabled: RequestHandler = (_request, response) => {
  response.setHeader("Cache-Control", "no-store");
  response
    .status(404)
    .json({ error: { code: "UNAUTHENTICATED", message: "the dashboard is disabled (REVIEWBOT_DASHBOARD_PASSWORD is not set)" } } satisfies ErrorBody);
};

const securityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader("X-Frame-Options", "DENY");
  response.setHeader("Content-Security-Policy", "frame-ancestors 'none'");
  response.setHeader("Cache-Control", "no-store");
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "same-origin");
  next();
};
