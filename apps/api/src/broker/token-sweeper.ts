import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "@reviewbot/core/logger";
import { claimedLock, outcomeKey } from "./job-authority.js";
import type { TokenVault } from "./token-vault.js";

export interface TokenSweeperDeps {
  readonly vault: TokenVault;
  readonly redis: Redis;
  readonly reviews: Queue;
  readonly logger: Logger;
  /** How often the vault is swept; default 5 s. */
  readonly intervalMs?: number;
}

const BATCH = 200;

/**
 * Revokes the tokens of jobs that ended without a report: the deadline passed, the outcome is
 * recorded, or the job's BullMQ lock is no longer the one it was claimed under (the worker died,
 * the job stalled, failed, was retried or removed). Runs in every api process; the vault makes
 * each revocation happen once.
 */
export function startTokenSweeper(deps: TokenSweeperDeps): { sweep: () => Promise<number>; close: () => void } {
  let running: Promise<number> | null = null;
  const sweep = (): Promise<number> =>
    (running ??= sweepOnce(deps).finally(() => {
      running = null;
    }));
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => {
      deps.logger.warn({ err }, "token sweep failed");
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

async function sweepOnce(deps: TokenSweeperDeps): Promise<number> {
  let revoked = 0;
  const now = Date.now();
  for (const { jobId, deadline } of await deps.vault.liveJobs(BATCH)) {
    const [lock, claimed, ended] = await Promise.all([
      deps.redis.get(deps.reviews.toKey(`${jobId}:lock`)),
      claimedLock(deps.redis, jobId),
      deps.redis.exists(outcomeKey(jobId)),
    ]);
    const reason = deadline <= now ? "deadline" : ended === 1 ? "ended" : lock === null || lock !== claimed ? "lock-lost" : null;
    if (reason === null) continue;
    const count = await deps.vault.revokeJob(jobId);
    revoked += count;
    deps.logger.info({ jobId, reason, revoked: count }, "swept the tokens of a job");
  }
  return revoked;
}
