import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { AppError } from "@reviewbot/core/errors";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { claimKey, outcomeKey } from "./job-authority.js";

export interface InstallationSlotsOptions {
  /** The api's own connection: the slots are api-only keys a worker's Redis user cannot reach. */
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly reviews: Queue;
  /** Reviews one installation may run at once (REVIEWBOT_INSTALLATION_CONCURRENCY). */
  readonly limit: number;
  /** A slot frees itself this long after its claim (REVIEWBOT_INSTALLATION_SLOT_TTL_MS). */
  readonly ttlMs: number;
  /** What a busy claim is told to wait (`Retry-After`); default 5 s. */
  readonly retryAfterMs?: number;
}

/** `reviewbot:broker:slots`: every slot held, `<installationId>/<jobId>` scored by its deadline: what the sweeper walks. */
function indexKey(keys: RedisKeyspace): string {
  return `${keys.ours}:broker:slots`;
}

// One step: expired slots of the installation go; the job keeps (or, on a new attempt, renews) a
// slot it holds; otherwise it takes one if fewer than the limit are held. Returns {1} or {0, held}.
const ACQUIRE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZSCORE', KEYS[1], ARGV[4]) ~= false
if not held and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return {0, redis.call('ZCARD', KEYS[1])}
end
if not held or ARGV[6] == '1' then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {1, redis.call('ZCARD', KEYS[1])}`;

// Frees a job's slot when the slot's deadline passed, the job's outcome is recorded, or the job's
// BullMQ lock is no longer the one the api bound its claim to (stalled, retried, handed back,
// failed, removed): checked and freed in one step, so a new claim in between is never undone.
const SWEEP_SCRIPT = `
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not deadline then return '' end
local reason = ''
if tonumber(deadline) <= tonumber(ARGV[3]) then reason = 'deadline'
elseif redis.call('EXISTS', KEYS[5]) == 1 then reason = 'ended'
else
  local lock = redis.call('GET', KEYS[3])
  if not lock or lock ~= redis.call('HGET', KEYS[4], 'lock') then reason = 'lock-lost' end
end
if reason ~= '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return reason`;

/**
 * The per-installation concurrency cap, decided by the api since workers are untrusted:
 * a claim that passed {@link authorizeJobCall} takes one of its installation's slots or is refused
 * with `INSTALLATION_BUSY`. Slots live in api-only sorted sets scored by their deadline, so an api
 * that crashes leaks nothing for longer than `ttlMs`: a slot is freed when the job's outcome is
 * recorded, when the sweeper finds its lock gone, or at its deadline.
 */
export class InstallationSlots {
  readonly #options: InstallationSlotsOptions;

  constructor(options: InstallationSlotsOptions) {
    this.#options = options;
  }

  get limit(): number {
    return this.#options.limit;
  }

  /**
   * Gives `jobId` a slot of its installation. `renew` (a new attempt under a new lock) restarts the
   * deadline of a slot the job already holds; a repeated claim under the same lock keeps it. When
   * the installation looks full, its slots are checked first (at most `limit` of them), so a job
   * that ended unseen since the last sweep does not make another wait.
   *
   * @throws AppError `INSTALLATION_BUSY` (retryable) when the installation holds `limit` live slots.
   */
  async acquire(installationId: number, jobId: string, renew: boolean): Promise<void> {
    let held = await this.#take(installationId, jobId, renew);
    if (held !== null && (await this.#reap(installationId)) > 0) held = await this.#take(installationId, jobId, renew);
    if (held === null) return;
    const { limit } = this.#options;
    const retryAfterMs = this.#options.retryAfterMs ?? 5000;
    throw new AppError("INSTALLATION_BUSY", `installation ${installationId} already runs ${held} review(s), its limit`, {
      details: { installationId, held, limit, retryAfterMs },
    });
  }

  /** Takes a slot (null) or says how many are held. */
  async #take(installationId: number, jobId: string, renew: boolean): Promise<number | null> {
    const now = Date.now();
    const { ttlMs, limit } = this.#options;
    const [taken, held] = (await this.#options.redis.eval(
      ACQUIRE_SCRIPT,
      2,
      slotsKey(this.#options.keys, installationId),
      indexKey(this.#options.keys),
      now,
      now + ttlMs,
      limit,
      jobId,
      indexMember(installationId, jobId),
      renew ? "1" : "0",
      ttlMs * 2,
    )) as [number, number];
    return taken === 1 ? null : held;
  }

  /** Frees the installation's slots whose job ended; returns how many. */
  async #reap(installationId: number): Promise<number> {
    const jobIds = await this.#options.redis.zrange(slotsKey(this.#options.keys, installationId), 0, this.#options.limit - 1);
    let freed = 0;
    for (const jobId of jobIds) if ((await this.#check(installationId, jobId, Date.now())) !== "") freed += 1;
    return freed;
  }

  /** Frees the slot if its job ended (see SWEEP_SCRIPT); returns why, or "" when it stays. */
  async #check(installationId: number, jobId: string, now: number): Promise<string> {
    const keys = [
      slotsKey(this.#options.keys, installationId),
      indexKey(this.#options.keys),
      this.#options.reviews.toKey(`${jobId}:lock`),
      claimKey(this.#options.keys, jobId),
      outcomeKey(this.#options.keys, jobId),
    ];
    return (await this.#options.redis.eval(SWEEP_SCRIPT, keys.length, ...keys, jobId, indexMember(installationId, jobId), now)) as string;
  }

  /** Frees the job's slot (its outcome is recorded). Idempotent. */
  async release(installationId: number, jobId: string): Promise<void> {
    await this.#options.redis
      .multi()
      .zrem(slotsKey(this.#options.keys, installationId), jobId)
      .zrem(indexKey(this.#options.keys), indexMember(installationId, jobId))
      .exec();
  }

  /** Reviews of the installation holding a slot now (expired ones not counted). */
  async held(installationId: number): Promise<number> {
    return this.#options.redis.zcount(slotsKey(this.#options.keys, installationId), `(${Date.now()}`, "+inf");
  }

  /**
   * Checks at most `limit` slots, from `cursor` (a ZSCAN cursor of the index; "0" to start), and
   * frees those whose job ended without a report; returns where to go on and what was freed.
   */
  async sweep(cursor: string, limit: number): Promise<{ cursor: string; freed: { jobId: string; reason: string }[] }> {
    const [next, flat] = await this.#options.redis.zscan(indexKey(this.#options.keys), cursor, "COUNT", limit);
    const freed: { jobId: string; reason: string }[] = [];
    const now = Date.now();
    for (let i = 0; i < flat.length; i += 2) {
      const member = flat[i] ?? "";
      const slash = member.indexOf("/");
      const jobId = member.slice(slash + 1);
      const reason = await this.#check(Number(member.slice(0, slash)), jobId, now);
      if (reason !== "") freed.push({ jobId, reason });
    }
    return { cursor: next, freed };
  }
}

/** `reviewbot:broker:slots:<installationId>`: api-only, the installation's running jobs by deadline. */
function slotsKey(keys: RedisKeyspace, installationId: number): string {
  return `${keys.ours}:broker:slots:${installationId}`;
}

// Job ids never hold a slash (review.<repo>.<pr>.<delivery>), installation ids are numbers.
function indexMember(installationId: number, jobId: string): string {
  return `${installationId}/${jobId}`;
}
