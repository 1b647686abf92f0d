import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { requestCancel } from "./cancel-channel.js";
import { admitToShare, releaseShare } from "./fair-share.js";
import { recordLatestHead } from "./pull-request-state.js";
import { REVIEW_JOB_OPTIONS, reviewJobId } from "./review-queue.js";
import { ReviewJob } from "./review-job.js";

/** What became of an older job of the same PR: removed while waiting, or asked to cancel. */
export type Supersession = "none" | "removed" | "cancelled" | "running-same-head";

export interface EnqueueOutcome {
  readonly jobId: string;
  readonly priority: number;
  readonly previousJobId: string | null;
  readonly supersession: Supersession;
}

const WAITING_STATES = new Set(["waiting", "prioritized", "delayed", "waiting-children"]);

/**
 * Enqueues a review (validated here, where it is written) and makes it the PR's only live review:
 * an older job still waiting is removed, and one running for an older head is cancelled on
 * whichever host runs it. Its priority comes from the installation's fair share.
 */
export async function enqueueReview(queue: Queue, redis: Redis, input: ReviewJob): Promise<EnqueueOutcome> {
  const job = ReviewJob.parse(input);
  const jobId = reviewJobId(job);
  const previousJobId = await recordLatestHead(redis, job, jobId);
  const priority = await admitToShare(redis, job.installationId, jobId);
  await queue.add("review", job, { ...REVIEW_JOB_OPTIONS, jobId, priority });
  const supersession = previousJobId === null ? "none" : await supersede(queue, redis, previousJobId, job.headSha);
  return { jobId, priority, previousJobId, supersession };
}

async function supersede(queue: Queue, redis: Redis, previousJobId: string, newHead: string): Promise<Supersession> {
  const previous = await queue.getJob(previousJobId);
  if (previous === undefined) return "none";
  const state = await previous.getState();
  if (WAITING_STATES.has(state)) {
    // A worker may lock it between getState and remove; then it is running and gets cancelled.
    const removed = await previous.remove().then(
      () => true,
      () => false,
    );
    if (removed) {
      await releaseShare(redis, (previous.data as ReviewJob).installationId, previousJobId);
      return "removed";
    }
  } else if (state !== "active") {
    return "none";
  }
  if ((previous.data as ReviewJob).headSha === newHead) return "running-same-head";
  await requestCancel(redis, previousJobId);
  return "cancelled";
}
