import type { Redis } from "ioredis";
import { KEY_PREFIX } from "./queue-names.js";
import { pullRequestKey, type ReviewJob } from "./review-job.js";

type PullRequestRef = Pick<ReviewJob, "repositoryId" | "pullNumber">;

function stateKey(pr: PullRequestRef): string {
  return `${KEY_PREFIX}:pr:${pullRequestKey(pr)}`;
}

// One round trip, atomic: the previous job of the PR is read and replaced in the same step, so
// two API processes enqueueing for one PR each see the other's job, never the same one twice.
const RECORD_SCRIPT = `
local previous = redis.call('HGET', KEYS[1], 'job')
redis.call('HSET', KEYS[1], 'head', ARGV[1], 'job', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return previous`;

/** How long a PR's latest head is remembered after its last event (30 days). */
const STATE_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Records `headSha` as the PR's newest head and `jobId` as the job reviewing it; returns the job
 * it replaces (which the caller supersedes), or null.
 */
export async function recordLatestHead(redis: Redis, job: ReviewJob, jobId: string): Promise<string | null> {
  const previous = await redis.eval(RECORD_SCRIPT, 1, stateKey(job), job.headSha, jobId, STATE_TTL_MS);
  return typeof previous === "string" && previous !== jobId ? previous : null;
}

/**
 * True when a newer head of the same PR has been recorded since `job` was enqueued: its review is
 * outdated and must not run or publish. A PR with no record (expired) is not superseded.
 */
export async function isSuperseded(redis: Redis, job: ReviewJob): Promise<boolean> {
  const head = await redis.hget(stateKey(job), "head");
  return head !== null && head !== job.headSha;
}

/** The newest head recorded for the PR, for messages ("superseded by …"). */
export async function latestHead(redis: Redis, pr: PullRequestRef): Promise<string | null> {
  return redis.hget(stateKey(pr), "head");
}
