import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import { newShareSweepCursor, sweepShares, type ShareSweepCursor } from "@reviewbot/queue/fair-share";
import type { InstallationSlots } from "./installation-slots.js";
import { claimedLock, outcomeKey } from "./job-authority.js";
import type { TokenVault } from "./token-vault.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface TokenSweeperDeps {
  /** Null without a GitHub App: no tokens to revoke, the rest is swept all the same. */
  readonly vault: TokenVault | null;
  /** The per-installation concurrency cap whose slots are freed here; none when the worker routes are off. */
  readonly slots?: InstallationSlots | null;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly reviews: Queue;
  readonly logger: Logger;
  /** How often the sweep runs; default 5 s. */
  readonly intervalMs?: number;
}

/** What one sweep did. */
export interface SweepSummary {
  /** Tokens revoked. */
  readonly revoked: number;
  /** Installation slots freed. */
  readonly slots: number;
  /** Fair-share entries released. */
  readonly shares: number;
}

const BATCH = 200;

/**
 * Cleans up after jobs that ended without a report (the worker died, the job stalled, failed,
 * was retried or removed), with bounded work per sweep: revokes their tokens and frees their
 * installation slots (the deadline passed, the outcome is recorded, or the job's BullMQ lock is no
 * longer the one it was claimed under), and releases the fair-share entries of jobs that are gone,
 * completed or failed. Runs in every api process; each step is idempotent.
 */
export function startTokenSweeper(deps: TokenSweeperDeps): { sweep: () => Promise<SweepSummary>; close: () => void } {
  let running: Promise<SweepSummary> | null = null;
  const cursors = { slots: "0", shares: newShareSweepCursor() };
  const sweep = (): Promise<SweepSummary> =>
    (running ??= sweepOnce(deps, cursors).finally(() => {
      running = null;
    }));
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => {
      deps.logger.warn({ err }, "broker sweep failed");
    });
  }, deps.intervalMs ?? 5000);
  timer.unref();
  return {
    sweep,
    close: () => {
      clearInterval(timer);
    },
  };
}

async function sweepOnce(deps: TokenSweeperDeps, cursors: { slots: string; shares: ShareSweepCursor }): Promise<SweepSummary> {
  const revoked = deps.vault === null ? 0 : await sweepTokens(deps, deps.vault);
  let slots = 0;
  const cap = deps.slots ?? null;
  if (cap !== null) {
    const swept = await cap.sweep(cursors.slots, BATCH);
    cursors.slots = swept.cursor;
    for (const { jobId, reason } of swept.freed) deps.logger.info({ jobId, reason }, "freed the installation slot of a job");
    slots = swept.freed.length;
  }
  const { released: shares } = await sweepShares(deps.redis, deps.keys, deps.reviews, cursors.shares, BATCH);
  if (shares > 0) deps.logger.info({ released: shares }, "released the fair-share entries of ended jobs");
  return { revoked, slots, shares };
}

async function sweepTokens(deps: TokenSweeperDeps, vault: TokenVault): Promise<number> {
  let revoked = 0;
  const now = Date.now();
  for (const { jobId, deadline } of await vault.liveJobs(BATCH)) {
    const [lock, claimed, ended] = await Promise.all([
      deps.redis.get(deps.reviews.toKey(`${jobId}:lock`)),
      claimedLock(deps.redis, deps.keys, jobId),
      deps.redis.exists(outcomeKey(deps.keys, jobId)),
    ]);
    const reason = deadline <= now ? "deadline" : ended === 1 ? "ended" : lock === null || lock !== claimed ? "lock-lost" : null;
    if (reason === null) continue;
    const count = await vault.revokeJob(jobId);
    revoked += count;
    deps.logger.info({ jobId, reason, revoked: count }, "swept the tokens of a job");
  }
  return revoked;
}
