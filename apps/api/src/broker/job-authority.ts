import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { AppError, isAppError } from "@reviewbot/core/errors";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { openReviewJob } from "@reviewbot/queue/queued-review-job";
import type { ReviewJob } from "@reviewbot/contracts/review-job";

/** How long the api remembers which worker claimed a job under which lock (past any job). */
const CLAIM_TTL_MS = 2 * 24 * 3600 * 1000;

export interface JobAuthorityDeps {
  readonly reviews: Queue;
  readonly redis: Redis;
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

// One atomic step: the job is ACTIVE, its BullMQ lock is the presented token, it has not ended,
// and this lock is claimed by this worker (the first authenticated caller under a lock owns it).
const BIND_SCRIPT = `
if redis.call('EXISTS', KEYS[4]) == 1 and ARGV[4] ~= 'report' then return {'ended', ''} end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lock', ''} end
if not redis.call('LPOS', KEYS[2], ARGV[5]) then return {'inactive', ''} end
local lock = redis.call('HGET', KEYS[3], 'lock')
if lock == ARGV[1] then
  if redis.call('HGET', KEYS[3], 'worker') ~= ARGV[2] then return {'worker', ''} end
  return {'held', ''}
end
if ARGV[4] == 'use' then return {'unclaimed', ''} end
redis.call('HSET', KEYS[3], 'lock', ARGV[1], 'worker', ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {'bound', lock or ''}`;

const REFUSALS: Readonly<Record<string, string>> = {
  ended: "the job has ended",
  lock: "the lock token is not the job's current lock",
  inactive: "the job is not active",
  worker: "another worker claimed this job under this lock",
  unclaimed: "the job was not claimed under this lock: claim it first",
};

/**
 * Decides whether `worker` may act for job `jobId` right now (docs/architecture.md, layer 4:
 * workers are untrusted clients of the api): the api sealed the job (a worker can add and alter
 * queue entries, not seal them), the job is active, the caller presents its current BullMQ lock
 * token, and no other worker claimed that lock. `purpose` `claim` is also refused once the job's
 * outcome is recorded; a `report` is not, so that a retried report is recognised as a duplicate.
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
  const queued = await deps.reviews.getJob(call.jobId);
  if (queued === undefined) throw new AppError("JOB_NOT_HELD", "no review job has this id");
  let job: ReviewJob;
  try {
    job = openReviewJob(deps.seal, call.jobId, queued.data);
  } catch (err) {
    if (!isAppError(err)) throw err;
    if (err.details.forged === true)
      throw new AppError("JOB_NOT_HELD", "the job was not created by the api, or was altered", { cause: err, details: { forged: true } });
    throw new AppError("JOB_NOT_HELD", "the queued job breaks its contract", { cause: err });
  }
  const [verdict, previous] = (await deps.redis.eval(
    BIND_SCRIPT,
    4,
    deps.reviews.toKey(`${call.jobId}:lock`),
    deps.reviews.toKey("active"),
    claimKey(call.jobId),
    outcomeKey(call.jobId),
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

/** The lock a job was last claimed under, or null; the sweeper compares it with the job's lock now. */
export async function claimedLock(redis: Redis, jobId: string): Promise<string | null> {
  return redis.hget(claimKey(jobId), "lock");
}

/** `reviewbot:broker:claim:<jobId>`: api-only, the worker and lock token of the job's claim. */
export function claimKey(jobId: string): string {
  return `${KEY_PREFIX}:broker:claim:${jobId}`;
}

/** `reviewbot:outcome:<jobId>`: api-only, the kind of outcome recorded for the job. */
export function outcomeKey(jobId: string): string {
  return `${KEY_PREFIX}:outcome:${jobId}`;
}
