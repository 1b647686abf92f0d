import type { RedisClient } from "./redis-client.js";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { pullRequestKey, type ReviewJob } from "@reviewbot/contracts/review-job";

type PullRequestRef = Pick<ReviewJob, "repositoryId" | "pullNumber">;

function stateKey(keys: RedisKeyspace, pr: PullRequestRef): string {
  return `${keys.ours}:pr:${pullRequestKey(pr)}`;
}

/**
 * What recording a job's head came to: `recorded` (it is the PR's head now; `previous` is the job
 * it replaces, which the caller supersedes) or `stale` (an older head than the recorded one: not
 * recorded, nothing superseded; `tie` when both carry the same `updated_at`).
 */
export type HeadRecord =
  { readonly kind: "recorded"; readonly previous: string | null } | { readonly kind: "stale"; readonly recordedHead: string; readonly tie: boolean };

// The ordering rule: a delivery's head is only as new as the PR's `updated_at` that
// GitHub sent with it, and the X-GitHub-Delivery id is not signed, so a captured delivery can be
// sent again at any time. For one PR, with `at` the recorded `updated_at` (ms since the epoch):
//   1. no record (new PR, or expired): the job's head is recorded;
//   2. the same head as recorded: recorded (a re-review: `/review`, a re-run, a reopen); this moves
//      nothing back, and `at` keeps the later of the two times;
//   3. another head, strictly later `updated_at`: recorded (a newer push), the old job superseded;
//   4. another head, earlier `updated_at`: stale, whatever its delivery id says;
//   5. another head, the same `updated_at` (GitHub's clock has whole seconds): stale too when the
//      head comes from a payload, which may be a replay; a head GitHub's API reported (`api`, the
//      publisher's lookup, made after the recorded event arrived) is the PR's head and wins the tie.
// A record without `at` (written before the rule existed) orders nothing: the job is recorded.
// One round trip, atomic: two API processes recording for one PR each see the other's job.
const RECORD_SCRIPT = `
local head = redis.call('HGET', KEYS[1], 'head')
local at = redis.call('HGET', KEYS[1], 'at')
local incoming = tonumber(ARGV[2])
if head and head ~= ARGV[1] and at then
  local recorded = tonumber(at)
  if incoming < recorded or (incoming == recorded and ARGV[5] ~= 'api') then
    return {'stale', head, incoming == recorded and 'tie' or 'older'}
  end
end
local keep = ARGV[2]
if at and tonumber(at) > incoming then keep = at end
local previous = redis.call('HGET', KEYS[1], 'job')
redis.call('HSET', KEYS[1], 'head', ARGV[1], 'at', keep, 'job', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'recorded', previous or ''}`;

/** How long a PR's latest head is remembered after its last event (30 days). */
const STATE_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Records `job.headSha` as the PR's newest head and `jobId` as the job reviewing it, unless the
 * ordering rule above finds the head older than the recorded one. Atomic in Redis.
 */
export async function recordLatestHead(redis: RedisClient, keys: RedisKeyspace, job: ReviewJob, jobId: string): Promise<HeadRecord> {
  const at = Date.parse(job.pullUpdatedAt);
  const reply = (await redis.eval(RECORD_SCRIPT, 1, stateKey(keys, job), job.headSha, at, jobId, STATE_TTL_MS, job.headFrom)) as string[];
  const [kind, value = "", detail] = reply;
  if (kind === "stale") return { kind: "stale", recordedHead: value, tie: detail === "tie" };
  return { kind: "recorded", previous: value === "" || value === jobId ? null : value };
}

/**
 * True when a newer head of the same PR has been recorded since `job` was enqueued: its review is
 * outdated and must not run or publish. A PR with no record (expired) is not superseded.
 */
export async function isSuperseded(redis: RedisClient, keys: RedisKeyspace, job: ReviewJob): Promise<boolean> {
  const head = await redis.hget(stateKey(keys, job), "head");
  return head !== null && head !== job.headSha;
}

/** The newest head recorded for the PR, for messages ("superseded by …"). */
export async function latestHead(redis: RedisClient, keys: RedisKeyspace, pr: PullRequestRef): Promise<string | null> {
  return redis.hget(stateKey(keys, pr), "head");
}
