import type { RequestHandler } from "express";
import { holderAnswers, type RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { ErrorBody } from "../http-kit/send-error.js";

/** How long Redis may take to answer PING before the process reports itself not ready. */
const READY_DEADLINE_MS = 1000;

/** `GET /healthz`: the process is up and serving (no dependency is checked). */
export const healthHandler: RequestHandler = (_request, response) => {
  response.setHeader("Cache-Control", "no-store");
  response.status(200).json({ status: "ok" });
};

/**
 * `GET /readyz`: the Redis server holding the keyspace (in a Cluster, its slot's primary) answers
 * PING within a second, else 503 (a load balancer stops routing).
 */
export function readyHandler(redis: RedisClient, keys: RedisKeyspace): RequestHandler {
  return async (_request, response) => {
    response.setHeader("Cache-Control", "no-store");
    if (await holderAnswers(redis, keys.ours, READY_DEADLINE_MS)) {
      response.status(200).json({ status: "ready" });
    } else {
      response.status(503).json({
        status: "unavailable",
        error: { code: "QUEUE_UNAVAILABLE", message: "Redis did not answer PING in time" },
      } satisfies ErrorBody & {
        status: string;
      });
    }
  };
}
