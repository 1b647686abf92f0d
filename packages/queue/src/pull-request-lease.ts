import type { RedisClient } from "./redis-client.js";
import type { RedisKeyspace } from "./redis-keyspace.js";
import { pullRequestKey, type ReviewJob } from "@reviewbot/contracts/review-job";

// Renew and release only while we still hold the lease: a lease that expired (a frozen worker)
// and was taken by another job must not be extended or deleted by the old holder.
const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * One review per PR at a time across every worker host: a job runs only while it holds its PR's
 * lease, a Redis key with an expiry that the holder renews. A worker killed mid-job stops renewing,
 * so the lease frees itself within `ttlMs`.
 */
export class PullRequestLease {
  /** The job id currently reviewing the PR on some host, or null. */
  static async holder(redis: RedisClient, keys: RedisKeyspace, pr: Pick<ReviewJob, "repositoryId" | "pullNumber">): Promise<string | null> {
    return redis.get(leaseKey(keys, pr));
  }

  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #holder: string;
  readonly #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: RedisClient, keys: RedisKeyspace, job: Pick<ReviewJob, "repositoryId" | "pullNumber">, holder: string, ttlMs: number) {
    this.#redis = redis;
    this.#key = leaseKey(keys, job);
    this.#holder = holder;
    this.#ttlMs = ttlMs;
  }

  /** Takes the lease (true) or reports another job of the PR holds it (false); renews until released. */
  async acquire(): Promise<boolean> {
    const taken = await this.#redis.set(this.#key, this.#holder, "PX", this.#ttlMs, "NX");
    const renewed = taken === null ? await this.#renew() : true;
    if (!renewed) return false;
    this.#timer = setInterval(() => void this.#renew().catch(() => undefined), Math.max(this.#ttlMs / 3, 100));
    this.#timer.unref();
    return true;
  }

  /** Idempotent. */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#redis.eval(RELEASE_SCRIPT, 1, this.#key, this.#holder);
  }

  // A retried job (same holder id) whose previous attempt died still owns the lease it held.
  async #renew(): Promise<boolean> {
    return (await this.#redis.eval(RENEW_SCRIPT, 1, this.#key, this.#holder, this.#ttlMs)) === 1;
  }
}

function leaseKey(keys: RedisKeyspace, pr: Pick<ReviewJob, "repositoryId" | "pullNumber">): string {
  return `${keys.ours}:lease:${pullRequestKey(pr)}`;
}
