import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { deliveryKey } from "../webhooks/delivery-ledger.js";
import { listHookDeliveries, redeliver, type HookDelivery } from "./hook-deliveries.js";
import { lostDeliveries } from "./lost-deliveries.js";
import type { RedeliveryMetrics, RedeliveryOutcome } from "./redelivery-metrics.js";

export interface RedeliverySweepDeps {
  readonly app: GitHubApp;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly metrics: RedeliveryMetrics;
  readonly logger: Logger;
  readonly lookbackMs: number;
  readonly maxPerRun: number;
  /** Pages read at most per run (default 50), and deliveries per page (default and most 100). */
  readonly maxPages?: number;
  readonly perPage?: number;
}

/** What one sweep did: the lost deliveries it met (not in the ledger) and what became of each it tried. */
export interface SweepResult {
  readonly lost: number;
  readonly outcomes: Readonly<Record<string, RedeliveryOutcome>>;
}

// GitHub keeps deliveries for 3 days: an attempt is remembered as long as the delivery can be asked for.
const ATTEMPT_TTL_SECONDS = 3 * 24 * 3600;

/** `reviewbot:redelivery:<guid>`: this guid's redelivery was asked for (by whichever api replica). */
export function attemptKey(keys: RedisKeyspace, guid: string): string {
  return `${keys.ours}:redelivery:${guid}`;
}

/**
 * One sweep (issue 25, part 3b): lists the App's deliveries in the look-back window, keeps those
 * GitHub never got a 2xx for, drops those whose guid is in our delivery ledger (they landed: a 503
 * after the write, say) and asks GitHub to redeliver each of the rest once, at most `maxPerRun`.
 * "Once" holds across sweeps and api replicas: an attempt is claimed in Redis (SET NX) before the
 * POST and never retried by a sweep. The backlog gauge counts the lost deliveries this run did not
 * ask for: over the cap, the ask failed, or asked for before and still not in the ledger.
 */
export async function runRedeliverySweep(deps: RedeliverySweepDeps): Promise<SweepResult> {
  const listed = await listHookDeliveries(deps.app, { since: Date.now() - deps.lookbackMs, maxPages: deps.maxPages ?? 50, perPage: deps.perPage ?? 100 });
  const lost: HookDelivery[] = [];
  const fresh: HookDelivery[] = [];
  for (const delivery of lostDeliveries(listed)) {
    const [inLedger, attempted] = await Promise.all([
      deps.redis.exists(deliveryKey(deps.keys, delivery.guid)),
      deps.redis.exists(attemptKey(deps.keys, delivery.guid)),
    ]);
    if (inLedger === 1) continue;
    lost.push(delivery);
    if (attempted === 0) fresh.push(delivery);
  }
  const outcomes: Record<string, RedeliveryOutcome> = {};
  for (const delivery of fresh.slice(0, deps.maxPerRun)) {
    const outcome = await redeliverOnce(deps, delivery);
    outcomes[delivery.guid] = outcome;
    deps.metrics.redeliveries.inc({ outcome });
  }
  const requested = Object.values(outcomes).filter((outcome) => outcome !== "failed").length;
  deps.metrics.backlog.set(lost.length - requested);
  deps.logger.info({ listed: listed.length, lost: lost.length, requested, backlog: lost.length - requested }, "redelivery sweep");
  return { lost: lost.length, outcomes };
}

async function redeliverOnce(deps: RedeliverySweepDeps, delivery: HookDelivery): Promise<RedeliveryOutcome> {
  const log = deps.logger.child({ deliveryId: delivery.guid, hookDeliveryId: delivery.id, event: delivery.event });
  const claimed = await deps.redis.set(attemptKey(deps.keys, delivery.guid), String(delivery.id), "EX", ATTEMPT_TTL_SECONDS, "NX");
  if (claimed !== "OK") return "claimed_elsewhere";
  try {
    await redeliver(deps.app, delivery.id);
    log.info({ statusCode: delivery.status_code }, "redelivery requested");
    return "requested";
  } catch (err) {
    // The claim stays: GitHub may have taken the request before the error, and a second ask would
    // be a second delivery. The backlog gauge shows it; an operator can redeliver it by hand.
    log.warn({ err }, "redelivery request failed");
    return "failed";
  }
}
