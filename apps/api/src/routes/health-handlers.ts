import type { RequestHandler } from "express";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { ErrorBody } from "../http-kit/send-error.js";
import { withDeadline } from "../http-kit/with-deadline.js";

/** How long Redis may take to answer PING before the process reports itself not ready. */
export const READY_DEADLINE_MS = 1000;

/** `GET /healthz`: the process is up and serving (no dependency is checked). */
export const healthHandler: RequestHandler = (_request, response) => {
  response.setHeader("Cache-Control", "no-store");
  response.status(200).json({ status: "ok" });
};

/** `GET /readyz`: Redis answers PING within a second, else 503 (a load balancer stops routing). */
export function readyHandler(redis: RedisClient): RequestHandler {
  return async (_request, response) => {
    response.setHeader("Cache-Control", "no-store");
    try {
      await withDeadline(redis.ping(), READY_DEADLINE_MS, "QUEUE_UNAVAILABLE", "Redis did not answer PING");
      response.status(200).json({ status: "ready" });
    } catch {
      response.status(503).json({
        status: "unavailable",
        error: { code: "QUEUE_UNAVAILABLE", message: "Redis did not answer PING in time" },
      } satisfies ErrorBody & {
        status: string;
      });
    }
  };
}
