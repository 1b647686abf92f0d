import { randomUUID } from "node:crypto";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import type { TokenUsage } from "@reviewbot/contracts/chat";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** The operator's caps; spend in microdollars (millionths of a US dollar), null for none. */
export interface ModelBudgetLimits {
  readonly jobTokens: number;
  readonly installationDailyTokens: number;
  readonly jobMicrodollars: number | null;
  readonly installationDailyMicrodollars: number | null;
  /** Model calls one installation may have in flight at once (REVIEWBOT_LLM_INSTALLATION_CONCURRENCY). */
  readonly installationCalls: number;
  /** How long a call's in-flight mark outlives an api that died during it: past the longest a call may take. */
  readonly callTtlMs: number;
}

export interface JobBudget {
  readonly usedTokens: number;
  readonly maxTokens: number;
}

/** What one call is charged: tokens (input and output together) and their spend in microdollars. */
export interface CallCharge {
  readonly tokens: number;
  readonly microdollars: number;
}

/** A call admitted by {@link ModelBudget.reserve}: its worst case is charged until it is settled. */
export interface Reservation {
  readonly jobId: string;
  readonly installationId: number;
  readonly worst: CallCharge;
  /** The installation's day counter it was charged to: settlement goes there, even past midnight. */
  readonly dayKey: string;
  readonly callId: string;
}

/** Past any job and past a day: the counters are only read while they can matter. */
const TTL_SECONDS = 2 * 24 * 3600;

/** What a call refused as busy is told to wait (`Retry-After`). */
const BUSY_RETRY_AFTER_MS = 2000;

// One step, so that no two calls are admitted on the same reading of a counter. The job must have
// no call in flight (its mark: a key with the call's id and a TTL), and no job counter may have
// reached its cap. The installation's calls in flight are a sorted set of call ids scored by their
// deadline (the expired ones dropped first): while its day counters (which hold the worst case of
// those calls) have reached a cap, a call is told to come back if some are in flight (their
// settlement may return tokens) and refused for good if none is; and there must be fewer than the
// limit. Then the call's worst case is added to the four counters and the call is marked in flight.
// KEYS: job counters, day counters, job mark, installation's calls in flight.
// ARGV: tokens, microdollars, job token cap, day token cap, job spend cap, day spend cap (-1: none),
//       call limit, now (ms), mark TTL (ms), call id, counters' TTL (s).
// Returns {'ok'}, {'busy', what} or {'spent', what}.
const RESERVE_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return {'busy', 'job'} end
local function over(value, cap) return tonumber(cap) >= 0 and (tonumber(value) or 0) >= tonumber(cap) end
local job = redis.call('HMGET', KEYS[1], 'tokens', 'microdollars')
if over(job[1], ARGV[3]) then return {'spent', 'job-tokens'} end
if over(job[2], ARGV[5]) then return {'spent', 'job-spend'} end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[8])
local flying = redis.call('ZCARD', KEYS[4])
local day = redis.call('HMGET', KEYS[2], 'tokens', 'microdollars')
local spent = over(day[1], ARGV[4]) and 'day-tokens' or (over(day[2], ARGV[6]) and 'day-spend' or nil)
if spent then return {flying > 0 and 'busy' or 'spent', spent} end
if flying >= tonumber(ARGV[7]) then return {'busy', 'installation'} end
redis.call('SET', KEYS[3], ARGV[10], 'PX', ARGV[9])
redis.call('ZADD', KEYS[4], tonumber(ARGV[8]) + tonumber(ARGV[9]), ARGV[10])
redis.call('PEXPIRE', KEYS[4], ARGV[9])
for i = 1, 2 do
  redis.call('HINCRBY', KEYS[i], 'tokens', ARGV[1])
  redis.call('HINCRBY', KEYS[i], 'microdollars', ARGV[2])
  redis.call('EXPIRE', KEYS[i], ARGV[11])
end
return {'ok'}`;

// Settles a call: the difference between what it used and its worst case goes to the counters it
// was charged to, and its marks go (the job's only while it is still this call's).
// KEYS: job counters, day counters, job mark, installation's calls in flight.
// ARGV: token difference, microdollar difference, call id, counters' TTL (s). Returns the job's tokens.
const SETTLE_SCRIPT = `
for i = 1, 2 do
  redis.call('HINCRBY', KEYS[i], 'tokens', ARGV[1])
  redis.call('HINCRBY', KEYS[i], 'microdollars', ARGV[2])
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end
if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
redis.call('ZREM', KEYS[4], ARGV[3])
return tonumber(redis.call('HGET', KEYS[1], 'tokens')) or 0`;

/**
 * Token and spend counters per job and per installation per UTC day, in Redis under api-only keys
 * (`reviewbot:llm:*`: a worker's Redis user cannot reach them). A call reserves its worst case
 * before it goes upstream: checked and charged in one Redis step, so calls racing each other are
 * admitted one at a time, each only while every counter (the worst cases in flight included) is
 * below its cap. Afterwards the call is settled to what it used. So the counters never pass a cap
 * by more than the worst case of the call admitted last, plus what settled calls used beyond
 * their worst case (only input the estimate missed: the output is capped). A job has at most one call in
 * flight and an installation `installationCalls`; the marks that say so expire after `callTtlMs`,
 * so an api that dies mid-call leaves the worst case charged and nothing held.
 */
export class ModelBudget {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeyspace;
  readonly #limits: ModelBudgetLimits;
  readonly #now: () => Date;

  constructor(redis: RedisClient, keys: RedisKeyspace, limits: ModelBudgetLimits, now: () => Date = () => new Date()) {
    this.#redis = redis;
    this.#keys = keys;
    this.#limits = limits;
    this.#now = now;
  }

  get callTtlMs(): number {
    return this.#limits.callTtlMs;
  }

  /**
   * What the job may still spend on its next call, in output tokens: what its and its
   * installation's token caps have left, as they read now (the call is admitted by {@link reserve}).
   */
  async outputTokensLeft(jobId: string, installationId: number): Promise<number> {
    const [job, day] = await Promise.all([this.#redis.hget(jobKey(this.#keys, jobId), "tokens"), this.#redis.hget(this.#dayKey(installationId), "tokens")]);
    const limits = this.#limits;
    return Math.min(limits.jobTokens - Number(job ?? 0), limits.installationDailyTokens - Number(day ?? 0));
  }

  /**
   * Admits a call whose worst case is `worst`, charging that to the job and the installation's day.
   *
   * @throws AppError `LLM_BUDGET_EXCEEDED` naming the cap that is used up; `LLM_BUSY` (retryable,
   *   with `retryAfterMs`) when the job has a call in flight or the installation its limit of them.
   */
  async reserve(jobId: string, installationId: number, worst: CallCharge): Promise<Reservation> {
    const limits = this.#limits;
    const dayKey = this.#dayKey(installationId);
    const callId = `${jobId}/${randomUUID()}`;
    const [verdict, what] = (await this.#redis.eval(
      RESERVE_SCRIPT,
      4,
      jobKey(this.#keys, jobId),
      dayKey,
      jobCallKey(this.#keys, jobId),
      installationCallsKey(this.#keys, installationId),
      worst.tokens,
      worst.microdollars,
      limits.jobTokens,
      limits.installationDailyTokens,
      limits.jobMicrodollars ?? -1,
      limits.installationDailyMicrodollars ?? -1,
      limits.installationCalls,
      Date.now(),
      limits.callTtlMs,
      callId,
      TTL_SECONDS,
    )) as [string, string | undefined];
    if (verdict === "ok") return { jobId, installationId, worst, dayKey, callId };
    const details = { jobId, installationId };
    if (verdict === "busy") {
      const message =
        what === "job"
          ? "the job already has a model call in flight: one at a time"
          : what === "installation"
            ? `installation ${installationId} already has ${limits.installationCalls} model call(s) in flight, its limit`
            : `the ${capName(what, limits)} is held by calls in flight: they may return some of it`;
      throw new AppError("LLM_BUSY", message, { details: { ...details, retryAfterMs: BUSY_RETRY_AFTER_MS } });
    }
    throw new AppError("LLM_BUDGET_EXCEEDED", `the ${capName(what, limits)} is used up`, { details });
  }

  /** Settles a call to what it used (its worst case when `usage` is null: unknown); the job's total after it. */
  async settle(reservation: Reservation, used: CallCharge | null): Promise<JobBudget> {
    const charge = used ?? reservation.worst;
    const usedTokens = (await this.#redis.eval(
      SETTLE_SCRIPT,
      4,
      jobKey(this.#keys, reservation.jobId),
      reservation.dayKey,
      jobCallKey(this.#keys, reservation.jobId),
      installationCallsKey(this.#keys, reservation.installationId),
      charge.tokens - reservation.worst.tokens,
      charge.microdollars - reservation.worst.microdollars,
      reservation.callId,
      TTL_SECONDS,
    )) as number;
    return { usedTokens, maxTokens: this.#limits.jobTokens };
  }

  #dayKey(installationId: number): string {
    return `${this.#keys.ours}:llm:installation:${installationId}:${this.#now().toISOString().slice(0, 10)}`;
  }
}

/** A usage's charge: its tokens, and their spend as priced. */
export function chargeOf(usage: TokenUsage, microdollars: number): CallCharge {
  return { tokens: usage.inputTokens + usage.outputTokens, microdollars };
}

function capName(what: string | undefined, limits: ModelBudgetLimits): string {
  if (what === "job-tokens") return `job's token budget (${limits.jobTokens} tokens)`;
  if (what === "day-tokens") return `installation's daily token budget (${limits.installationDailyTokens} tokens)`;
  return what === "job-spend" ? "job's spend cap" : "installation's daily spend cap";
}

function jobKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:llm:job:${jobId}`;
}

function jobCallKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:llm:call:job:${jobId}`;
}

function installationCallsKey(keys: RedisKeyspace, installationId: number): string {
  return `${keys.ours}:llm:calls:installation:${installationId}`;
}
