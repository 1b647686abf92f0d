import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { AiReport, PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import type { ReviewWitness } from "@reviewbot/contracts/github-task";
import { MAX_WITNESSED_DIFFS, MAX_WITNESSED_FINDINGS, diffPieceDigests, findingDigest, submittedFindingDigests } from "@reviewbot/contracts/model-witness";

/** A job's witness outlives its attempts and its report (as its claim record does). */
const WITNESS_TTL_MS = 2 * 24 * 3600 * 1000;
/** Members added per SADD: a long list is sent in parts. */
const BATCH = 1000;

/**
 * The broker's record of one job (api-only keys, `reviewbot:witness:<jobId>:*`): the diff pieces
 * its model calls showed the model, the findings the model submitted, and the previous review
 * the api offered the job at claim. Only this, never the worker's report, decides what of a
 * completed AI review a later job of another worker starts from (docs/ai-review.md, "What a
 * worker's report changes"). Each set is bounded; a job that passes a bound has its set voided,
 * which only makes the next review a whole one.
 */
export async function witnessModelCall(redis: RedisClient, keys: RedisKeyspace, jobId: string, request: ChatRequest, response: ChatResponse): Promise<void> {
  const diffs = request.messages.flatMap((message) => (message.role === "user" ? diffPieceDigests(message.content) : []));
  const findings = response.toolCalls.flatMap((call) => (call.name === "submit_review" ? submittedFindingDigests(call.arguments) : []));
  await addBounded(redis, witnessKey(keys, jobId, "diffs"), diffs, MAX_WITNESSED_DIFFS);
  await addBounded(redis, witnessKey(keys, jobId, "findings"), findings, MAX_WITNESSED_FINDINGS);
}

/**
 * Records what the api offered the job as its previous review at claim: its head (the only one the
 * job's review may say it started from) and its findings (already checked when they were
 * remembered), which the job may carry.
 */
export async function witnessOffer(
  redis: RedisClient,
  keys: RedisKeyspace,
  jobId: string,
  previous: { readonly headSha: string; readonly findings: readonly PlacedAiFinding[] } | null,
): Promise<void> {
  await redis.set(witnessKey(keys, jobId, "offered"), previous?.headSha ?? "", "PX", WITNESS_TTL_MS);
  if (previous !== null) await addBounded(redis, witnessKey(keys, jobId, "findings"), previous.findings.map(findingDigest), MAX_WITNESSED_FINDINGS);
}

/**
 * What of a `done` AI review the api vouches for: the head it started from only when that is the
 * one offered at claim (else it counts as a review of the whole PR, which the next worker then
 * checks as such), the diff pieces the model was shown, and the digests of the report's findings
 * the model submitted or the job was handed. Null for any other AI status: nothing is remembered.
 */
export async function witnessOfReview(redis: RedisClient, keys: RedisKeyspace, jobId: string, ai: AiReport): Promise<ReviewWitness | null> {
  if (ai.status !== "done") return null;
  const [offered, diffs, voided, submitted] = await Promise.all([
    redis.get(witnessKey(keys, jobId, "offered")),
    redis.smembers(witnessKey(keys, jobId, "diffs")),
    redis.exists(voidKey(witnessKey(keys, jobId, "diffs"))),
    redis.smembers(witnessKey(keys, jobId, "findings")),
  ]);
  const known = new Set(submitted);
  const findings = [...new Set(ai.findings.map(findingDigest))].filter((digest) => known.has(digest));
  return { since: ai.since !== null && ai.since === offered ? ai.since : null, diffs: voided === 1 ? [] : diffs.sort(), findings };
}

// Adds `members` unless the set already passed `max`; a set that passes it is voided (a marker
// key says so and nothing more is added), so a worker cannot grow it past one call's worth.
async function addBounded(redis: RedisClient, key: string, members: readonly string[], max: number): Promise<void> {
  if (members.length === 0 || (await redis.exists(voidKey(key))) === 1) return;
  const multi = redis.multi();
  for (let at = 0; at < members.length; at += BATCH) multi.sadd(key, ...members.slice(at, at + BATCH));
  multi.pexpire(key, WITNESS_TTL_MS).scard(key);
  const replies = (await multi.exec()) ?? [];
  const size = Number(replies.at(-1)?.[1] ?? 0);
  if (size > max) await redis.multi().set(voidKey(key), "1", "PX", WITNESS_TTL_MS).del(key).exec();
}

function witnessKey(keys: RedisKeyspace, jobId: string, part: "diffs" | "findings" | "offered"): string {
  return `${keys.ours}:witness:${jobId}:${part}`;
}

function voidKey(key: string): string {
  return `${key}:void`;
}
