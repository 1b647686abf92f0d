import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

export interface HealthChecks {
  /** Redis answers PING. */
  redisReady(): Promise<boolean>;
  /** The sandbox engine was prepared (its readiness probe passed, or mode `off`). */
  sandboxReady(): boolean;
}

/**
 * The worker's operational HTTP endpoints: `/healthz` (the process serves requests), `/readyz`
 * (Redis answers and the sandbox engine is ready; 503 otherwise) and `/metrics` (Prometheus).
 */
export function createHealthServer(checks: HealthChecks, registry: Registry): Server {
  return createServer((request, response) => {
    const path = (request.url ?? "/").split("?", 1)[0];
    const send = (status: number, body: string, type = "text/plain; charset=utf-8"): void => {
      response.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      response.end(body);
    };
    if (request.method !== "GET" && request.method !== "HEAD") {
      send(405, "method not allowed\n");
      return;
    }
    if (path === "/healthz") {
      send(200, "ok\n");
    } else if (path === "/readyz") {
      void readiness(checks).then(({ ready, detail }) => {
        send(ready ? 200 : 503, `${JSON.stringify(detail)}\n`, "application/json");
      });
    } else if (path === "/metrics") {
      void registry.metrics().then(
        (text) => {
          send(200, text, registry.contentType);
        },
        () => {
          send(500, "metrics unavailable\n");
        },
      );
    } else {
      send(404, "not found\n");
    }
  });
}

async function readiness(checks: HealthChecks): Promise<{ ready: boolean; detail: { redis: boolean; sandbox: boolean } }> {
  const redis = await checks.redisReady().catch(() => false);
  const sandbox = checks.sandboxReady();
  return { ready: redis && sandbox, detail: { redis, sandbox } };
}
