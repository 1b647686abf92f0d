import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { liveJobKey } from "@reviewbot/queue/live-job-record";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { MAX_SEALED_JOB_BYTES, openReviewJob, readQueuedJobData } from "@reviewbot/queue/queued-review-job";
import { REVIEW_JOB_MAX_AGE_MS } from "@reviewbot/queue/review-queue";
import type { ReviewJob } from "@reviewbot/contracts/review-job";

/** How long the api remembers which worker claimed a job under which lock: as long as a job lives. */
const CLAIM_TTL_MS = REVIEW_JOB_MAX_AGE_MS;

export interface JobAuthorityDeps {
  readonly reviews: Queue;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly seal: QueueSeal;
}

export interface HeldJob {
  /** The job as the api sealed it: repository, installation, PR and SHAs come only from here. */
  readonly job: ReviewJob;
  /** The lock token of the job's previous claim when this call starts a new attempt (its tokens must die), else null. */
  readonly replacedLock: string | null;
  /** True when this call bound the job's current lock (a new attempt), false when it was bound before. */
  readonly fresh: boolean;
}

// One atomic step: the api's record says the job is live (or, for a report, its outcome is
// recorded), it is ACTIVE, its BullMQ lock is the presented token, it has not ended, and this lock
// is claimed by this worker (the first authenticated caller under a lock owns it). A new lock gets
// a new right to one repository token (field 'token', see takeTokenRight).
const BIND_SCRIPT = `
if redis.call('EXISTS', KEYS[4]) == 1 then
  if ARGV[4] ~= 'report' then return {'ended', ''} end
elseif redis.call('EXISTS', KEYS[5]) == 0 then return {'dead', ''} end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lock', ''} end
if not redis.call('LPOS', KEYS[2], ARGV[5]) then return {'inactive', ''} end
local lock = redis.call('HGET', KEYS[3], 'lock')
if lock == ARGV[1] then
  if redis.call('HGET', KEYS[3], 'worker') ~= ARGV[2] then return {'worker', ''} end
  return {'held', ''}
end
if ARGV[4] == 'use' then return {'unclaimed', ''} end
redis.call('HDEL', KEYS[3], 'token')
redis.call('HSET', KEYS[3], 'lock', ARGV[1], 'worker', ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {'bound', lock or ''}`;

const REFUSALS: Readonly<Record<string, string>> = {
  ended: "the job has ended",
  dead: "the api has no live record of this job: it ended, was removed or superseded, or outlived any job",
  lock: "the lock token is not the job's current lock",
  inactive: "the job is not active",
  worker: "another worker claimed this job under this lock",
  unclaimed: "the job was not claimed under this lock: claim it first",
};

/**
 * Decides whether `worker` may act for job `jobId` right now (docs/architecture.md, layer 4:
 * workers are untrusted clients of the api): the api sealed the job (a worker can add and alter
 * queue entries, not seal them) within REVIEW_JOB_MAX_AGE_MS, the api's own record says the job is
 * live (a worker can put back a sealed job the api removed or saw end, not that record), it is
 * active, the caller presents its current BullMQ lock token, and no other worker claimed that lock.
 * `purpose` `claim` is also refused once the job's outcome is recorded; a `report` is not, so that
 * a retried report is recognised as a duplicate.
 * `use` (a model call, a fetch, the AI cache) needs a claim this worker made under this lock, and a
 * job that has not ended: it never binds a lock itself, so nothing is spent on the model before the
 * api has started the job.
 *
 * @throws AppError `JOB_NOT_HELD` naming the reason; the job, as sealed, otherwise.
 */
export async function authorizeJobCall(
  deps: JobAuthorityDeps,
  call: { readonly worker: string; readonly jobId: string; readonly lockToken: string; readonly purpose: "claim" | "report" | "use" },
): Promise<HeldJob> {
  const { job, sealedAt } = await readSealedJob(deps, call.jobId);
  if (call.purpose !== "report" && (sealedAt === null || Date.now() - sealedAt > REVIEW_JOB_MAX_AGE_MS))
    throw new AppError("JOB_NOT_HELD", "the job was sealed longer ago than any job lives: a saved copy put back", { details: { verdict: "expired" } });
  const [verdict, previous] = (await deps.redis.eval(
    BIND_SCRIPT,
    5,
    deps.reviews.toKey(`${call.jobId}:lock`),
    deps.reviews.toKey("active"),
    claimKey(deps.keys, call.jobId),
    outcomeKey(deps.keys, call.jobId),
    liveJobKey(deps.keys, call.jobId),
    call.lockToken,
    call.worker,
    CLAIM_TTL_MS,
    call.purpose,
    call.jobId,
  )) as [string, string];
  const refusal = REFUSALS[verdict];
  if (refusal !== undefined) throw new AppError("JOB_NOT_HELD", refusal, { details: { verdict } });
  return { job, replacedLock: verdict === "bound" && previous !== "" ? previous : null, fresh: verdict === "bound" };
}

/** The queued job as the api sealed it, its data measured before it is read (readQueuedJobData). */
async function readSealedJob(deps: JobAuthorityDeps, jobId: string): Promise<{ job: ReviewJob; sealedAt: number | null }> {
  const queued = await readQueuedJobData(deps.redis, deps.reviews, jobId);
  if (queued.kind === "none") throw new AppError("JOB_NOT_HELD", "no review job has this id");
  if (queued.kind === "oversized")
    throw new AppError("JOB_NOT_HELD", `the queued job's data is ${queued.bytes} bytes, more than any job the api writes (${MAX_SEALED_JOB_BYTES})`, {
      details: { verdict: "oversized" },
    });
  if (queued.kind === "unreadable") throw new AppError("JOB_NOT_HELD", "the queued job's data is not JSON");
  try {
    return openReviewJob(deps.seal, jobId, queued.data);
  } catch (err) {
    if (!isAppError(err)) throw err;
    if (err.details.forged === true)
      throw new AppError("JOB_NOT_HELD", "the job was not created by the api, or was altered", { cause: err, details: { forged: true } });
    throw new AppError("JOB_NOT_HELD", "the queued job breaks its contract", { cause: err });
  }
}

/**
 * Takes the one right to a repository token that the job's claim under `lockToken` has (true), or
 * says it was taken before or the lock moved on (false): of every claim under a lock, a worker
 * that lost the answer or one repeating claims to mint more, exactly one mints.
 */
export async function takeTokenRight(redis: RedisClient, keys: RedisKeyspace, jobId: string, lockToken: string): Promise<boolean> {
  const script = `if redis.call('HGET', KEYS[1], 'lock') ~= ARGV[1] then return 0 end return redis.call('HSETNX', KEYS[1], 'token', '1')`;
  return (await redis.eval(script, 1, claimKey(keys, jobId), lockToken)) === 1;
}

/** A claim that took the right but could not mint gives it back, so the worker's retry can. */
export async function returnTokenRight(redis: RedisClient, keys: RedisKeyspace, jobId: string, lockToken: string): Promise<void> {
  await redis.eval(`if redis.call('HGET', KEYS[1], 'lock') == ARGV[1] then redis.call('HDEL', KEYS[1], 'token') end`, 1, claimKey(keys, jobId), lockToken);
}

/** The lock a job was last claimed under, or null; the sweeper compares it with the job's lock now. */
export async function claimedLock(redis: RedisClient, keys: RedisKeyspace, jobId: string): Promise<string | null> {
  return redis.hget(claimKey(keys, jobId), "lock");
}

/** `reviewbot:broker:claim:<jobId>`: api-only, the worker and lock token of the job's claim. */
export function claimKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:broker:claim:${jobId}`;
}

/** `reviewbot:outcome:<jobId>`: api-only, the kind of outcome recorded for the job. */
export function outcomeKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:outcome:${jobId}`;
}
