import type { Octokit } from "@octokit/core";
import type { OctokitOptions } from "@octokit/core/types";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { takePaceSlot } from "./take-pace-slot.js";

export interface RequestHooks {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  /** Minimum spacing of content-creating requests per installation, across processes. */
  readonly paceMs: number;
  /** Called once per HTTP attempt (retries included) with the route template and status (0: no response). */
  readonly onRequest?: (route: string, status: number) => void;
  /** Called with how long a request waited for its pace slot. */
  readonly onPaceWait?: (milliseconds: number) => void;
}

const CONTENT_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);
// Minting a token is authentication, not content creation (plugin-throttling treats it alike).
const AUTH_ROUTE = /^\/app\/installations\/[^/]+\/access_tokens$/;

/**
 * An Octokit plugin, registered before plugin-throttling and plugin-retry so that it sits inside
 * them and sees every attempt: it counts each request by route template and status, and makes an
 * installation's content-creating requests take a Redis pace slot first.
 */
export function requestHooksPlugin(hooks: RequestHooks): (octokit: Octokit, options: OctokitOptions) => object {
  return (octokit, options) => {
    const auth = options.auth as { installationId?: unknown } | undefined;
    const installationId = typeof auth?.installationId === "number" ? auth.installationId : null;
    octokit.hook.before("request", async (request) => {
      if (installationId === null || !CONTENT_METHODS.has(request.method) || AUTH_ROUTE.test(request.url)) return;
      const waited = await takePaceSlot(hooks.redis, hooks.keys, installationId, hooks.paceMs);
      hooks.onPaceWait?.(waited);
    });
    octokit.hook.after("request", (response, request) => {
      hooks.onRequest?.(`${request.method} ${request.url}`, response.status);
    });
    octokit.hook.error("request", (error, request) => {
      const status = (error as { status?: unknown }).status;
      hooks.onRequest?.(`${request.method} ${request.url}`, typeof status === "number" ? status : 0);
      throw error;
    });
    return {};
  };
}
