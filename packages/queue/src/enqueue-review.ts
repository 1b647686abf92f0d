import type { Queue } from "bullmq";
import type { RedisClient } from "./redis-client.js";
import { requestCancel } from "./cancel-channel.js";
import { joinShare, releaseShare, sharePriority } from "./fair-share.js";
import { endLiveJobs, openLiveJob } from "./live-job-record.js";
import { PullRequestLease } from "./pull-request-lease.js";
import type { QueueSeal } from "./queue-seal.js";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { openReviewJob, readQueuedJobData } from "./queued-review-job.js";
import { recordLatestHead, type HeadRecord } from "./pull-request-state.js";
import { REVIEW_JOB_OPTIONS, reviewJobId } from "./review-queue.js";
import { ReviewJob } from "@reviewbot/contracts/review-job";

export interface EnqueueOutcome {
  readonly jobId: string;
  readonly priority: number;
  /** The PR's previous job, removed because it was still waiting. */
  readonly removed: string | null;
  /** The job running for an older head of the PR, asked to cancel on whichever host runs it. */
  readonly cancelled: string | null;
  /**
   * Set when the job's head is older than the PR's recorded one (see recordLatestHead): the job was
   * not enqueued (`jobId` is the id it would have had, `priority` 0) and nothing was superseded.
   */
  readonly stale: Extract<HeadRecord, { kind: "stale" }> | null;
}

const WAITING_STATES = new Set(["waiting", "prioritized", "delayed", "waiting-children"]);

/**
 * Enqueues a review (validated here, where it is written) and makes it the PR's only live review:
 * the PR's previous job is removed if it is still waiting, and the job running for an older head
 * (the holder of the PR's lease) is cancelled. Its priority comes from the installation's fair share.
 * The job is sealed, and recorded as live: the api acts on no queued job it did not write
 * ({@link QueueSeal}), nor on one it removed or saw end ({@link openLiveJob}).
 */
export async function enqueueReview(queue: Queue, redis: RedisClient, keys: RedisKeyspace, seal: QueueSeal, input: ReviewJob): Promise<EnqueueOutcome> {
  const job = ReviewJob.parse(input);
  const jobId = reviewJobId(job);
  // Independent commands go out together (issue 25, part 5): each round trip the accept path waits
  // for wakes Redis and then the api, the largest share of the api's time per delivery
  // (docs/deployment.md, "The accept path").
  const [head, priority] = await Promise.all([recordLatestHead(redis, keys, job, jobId), sharePriority(redis, keys, job.installationId)]);
  // A delayed or replayed event must not roll the PR back: an older head is neither enqueued nor supersedes.
  if (head.kind === "stale") return { jobId, priority: 0, removed: null, cancelled: null, stale: head };
  const previousJobId = head.previous;
  // Before the add: a worker may claim the job the moment it is in the queue.
  await openLiveJob(redis, keys, jobId, job);
  await queue.add("review", seal.seal(jobId, job), { ...REVIEW_JOB_OPTIONS, jobId, priority });
  const [, removed, cancelled] = await Promise.all([
    joinShare(redis, keys, job.installationId, jobId),
    previousJobId === null ? null : removeIfWaiting(queue, redis, keys, previousJobId, job),
    cancelOlderRun(queue, redis, keys, seal, job, jobId),
  ]);
  return { jobId, priority, removed, cancelled, stale: null };
}

// The PR's earlier jobs are looked at without BullMQ's job parser: a worker's Redis user can write
// their hashes (readQueuedJobData), and what is decided here needs only their state and head.
async function removeIfWaiting(queue: Queue, redis: RedisClient, keys: RedisKeyspace, jobId: string, job: ReviewJob): Promise<string | null> {
  if (!WAITING_STATES.has(await queue.getJobState(jobId))) return null;
  // A worker may lock it between getJobState and remove; it then sees the newer head and stops.
  const removed = await queue.remove(jobId).then(
    (count) => count > 0,
    () => false,
  );
  if (!removed) return null;
  // The same PR, so the same repository and installation as the job that supersedes it.
  await Promise.all([endLiveJobs(redis, keys, [jobId]), releaseShare(redis, keys, job.installationId, jobId)]);
  return jobId;
}

/** Cancels the run holding the PR's lease unless it is the api's own job for this very head. */
async function cancelOlderRun(queue: Queue, redis: RedisClient, keys: RedisKeyspace, seal: QueueSeal, job: ReviewJob, jobId: string): Promise<string | null> {
  const holder = await PullRequestLease.holder(redis, keys, job);
  if (holder === null || holder === jobId) return null;
  const running = await readQueuedJobData(redis, queue, holder);
  if (running.kind === "none") return null;
  if (running.kind === "ok" && sameHead(seal, holder, running.data, job.headSha)) return null;
  await requestCancel(redis, keys, holder);
  return holder;
}

function sameHead(seal: QueueSeal, jobId: string, data: unknown, headSha: string): boolean {
  try {
    return openReviewJob(seal, jobId, data).job.headSha === headSha;
  } catch {
    return false;
  }
}
