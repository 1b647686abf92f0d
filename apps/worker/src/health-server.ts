import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";
import type { EngineHealth } from "@reviewbot/sandbox/sandbox-spec";

export interface HealthChecks {
  /** The Redis server holding the keyspace (in a Cluster, its slot's primary) answers PING in time. */
  redisReady(): Promise<boolean>;
  /**
   * The sandbox engine was prepared (its readiness probe passed, or mode `off`) and still answers
   * its health check (bounded and cached by the caller, see `createSandboxHealth` in @reviewbot/runtime).
   */
  sandbox(): Promise<EngineHealth>;
}

/** `/readyz`'s body: each part, and when one is not ready, why (`redis: …; sandbox: …`). */
export interface Readiness {
  readonly redis: boolean;
  readonly sandbox: boolean;
  readonly reason?: string;
}

/**
 * The worker's operational HTTP endpoints: `/healthz` (the process serves requests), `/readyz`
 * (Redis answers and the sandbox engine is healthy; 503 naming the reason otherwise) and
 * `/metrics` (Prometheus).
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

async function readiness(checks: HealthChecks): Promise<{ ready: boolean; detail: Readiness }> {
  const [redis, sandbox] = await Promise.all([
    checks.redisReady().catch(() => false),
    checks.sandbox().catch((err: unknown): EngineHealth => ({ healthy: false, reason: err instanceof Error ? err.message : String(err) })),
  ]);
  const reasons = [...(redis ? [] : ["redis: no answer to PING"]), ...(sandbox.healthy ? [] : [`sandbox: ${sandbox.reason}`])];
  const detail: Readiness = { redis, sandbox: sandbox.healthy, ...(reasons.length === 0 ? {} : { reason: reasons.join("; ") }) };
  return { ready: reasons.length === 0, detail };
}
