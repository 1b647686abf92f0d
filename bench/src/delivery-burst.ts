import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { closedLoop, latencyLine, statusesOf, type WebhookTarget } from "./webhook-load.js";

export interface BurstTarget extends WebhookTarget {
  /** The review queue, as the api's keyspace names it (paused while the burst is sent). */
  readonly queue: Queue;
  /** A connection to the fleet's Redis, for `INFO memory`. */
  readonly redis: RedisClient;
  /** The api's local sink: one file per reviewed head, `<repository>/<pull>/<headSha>.json`. */
  readonly sinkDir: string;
}

/** Deliveries in flight at once: a burst, bounded so the sender is not what is measured. */
const IN_FLIGHT = 64;
/** The burst's PRs are numbered from here, apart from the other runs' on the same repository. */
const FIRST_PULL = 100_001;

/**
 * A burst of `count` deliveries, one PR each, sent as fast as `IN_FLIGHT` allows while the queue
 * is paused (so Redis holds every job at once: its memory per queued job), then reviewed end to end
 * once the queue resumes. Prints the accept latency, Redis's memory per queued job, the time to
 * drain, and whether every accepted delivery was reviewed exactly once (one completed job with one
 * attempt, one sink file, nothing failed).
 */
export async function deliveryBurst(target: BurstTarget, count: number): Promise<void> {
  const { queue, redis } = target;
  await queue.obliterate({ force: true });
  await queue.pause();
  const before = await usedMemory(redis);
  const jobIds = new Set<string>();
  const run = await closedLoop(target, count, IN_FLIGHT, FIRST_PULL, (status, body) => {
    const jobId = status === 202 ? jobIdIn(body) : undefined;
    if (jobId !== undefined) jobIds.add(jobId);
  });
  const sendSeconds = count / run.perSecond;
  const queued = await queue.getJobCounts("wait", "paused", "prioritized", "delayed");
  const held = Object.values(queued).reduce((sum, value) => sum + value, 0);
  const after = await usedMemory(redis);
  console.log(`burst: ${count} deliveries in ${sendSeconds.toFixed(1)} s (${run.perSecond.toFixed(0)}/s, ${IN_FLIGHT} in flight), statuses ${statusesOf(run)}`);
  console.log(`  accept ${latencyLine(run)}`);
  console.log(
    `  Redis: ${held} jobs queued, ${((after - before) / Math.max(1, held) / 1024).toFixed(2)} KiB per queued job (used_memory ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB)`,
  );

  const drainStarted = performance.now();
  await queue.resume();
  for (;;) {
    const counts = await queue.getJobCounts("completed", "failed", "wait", "active", "delayed", "prioritized", "paused");
    if ((counts.completed ?? 0) + (counts.failed ?? 0) >= jobIds.size) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const outcome = await reviewedOnce(target, jobIds);
  console.log(
    `  drained ${jobIds.size} accepted reviews in ${drainSeconds.toFixed(1)} s = ${(jobIds.size / drainSeconds).toFixed(1)} reviews/s; ${outcome.once} reviewed exactly once, ${outcome.more} more than once, ${outcome.failed} failed, ${outcome.missing} missing; ${outcome.files} sink files`,
  );
}

function jobIdIn(body: string): string | undefined {
  try {
    const answer = JSON.parse(body) as { jobId?: unknown };
    return typeof answer.jobId === "string" ? answer.jobId : undefined;
  } catch {
    return undefined;
  }
}

async function usedMemory(redis: RedisClient): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? Number.NaN);
}

/** Each accepted job: completed after one attempt (a deferral for a busy installation is no attempt), or failed, or gone; and the sink's files. */
async function reviewedOnce(
  target: BurstTarget,
  jobIds: ReadonlySet<string>,
): Promise<{ once: number; more: number; failed: number; missing: number; files: number }> {
  const tally = { once: 0, more: 0, failed: 0, missing: 0, files: 0 };
  for (const id of jobIds) {
    const job = await target.queue.getJob(id);
    const state = await job?.getState();
    if (job === undefined || state === undefined) tally.missing += 1;
    else if (state === "failed") tally.failed += 1;
    else if (job.attemptsMade === 1) tally.once += 1;
    else tally.more += 1;
  }
  const pulls = (await readdir(join(target.sinkDir, target.repository)).catch(() => [])).filter((pull) => Number(pull) >= FIRST_PULL);
  for (const pull of pulls) tally.files += (await readdir(join(target.sinkDir, target.repository, pull)).catch(() => [])).length;
  return tally;
}
