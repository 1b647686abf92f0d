import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import type { SealedBox } from "@reviewbot/core/sealed-box";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** Revokes one installation token at GitHub (packages/github revokeRepositoryToken). */
export type TokenRevoker = (token: string) => Promise<void>;

export interface TokenVaultDeps {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  /** Seals tokens at rest: workers share this Redis (and, without ACLs, could read it). */
  readonly box: SealedBox;
  readonly revoke: TokenRevoker;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
}

/** `reviewbot:broker:live`: jobs holding live tokens, scored by the time their tokens must be dead by. */
function liveKey(keys: RedisKeyspace): string {
  return `${keys.ours}:broker:live`;
}

/** A revocation GitHub did not confirm is tried again this much later. */
const RETRY_MS = 30_000;

// Takes a job's tokens out of the vault in one step, so that of several api processes exactly one
// revokes them.
const TAKE_SCRIPT = `
local tokens = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return tokens`;

/**
 * The installation tokens the api handed to workers, kept (sealed) per job and lock until they are
 * revoked: when the job's outcome is recorded, when its claim moves to a new lock (a retry, a stall,
 * a crash), or at its deadline, whichever comes first (the sweeper covers the cases nobody reports).
 * State lives in Redis under api-only keys, so any api process revokes what another minted.
 */
export class TokenVault {
  readonly #deps: TokenVaultDeps;

  constructor(deps: TokenVaultDeps) {
    this.#deps = deps;
  }

  /**
   * Keeps `token`, issued to `jobId` under lock `lockToken`, until it is revoked; `deadline` (ms
   * since the epoch) at the latest.
   */
  async keep(jobId: string, lockToken: string, token: string, deadline: number): Promise<void> {
    const name = tokensKey(this.#deps.keys, jobId);
    await this.#deps.redis
      .multi()
      .hset(name, lockToken, this.#deps.box.seal(name, token))
      .pexpire(name, Math.max(deadline - Date.now(), 0) + 24 * 3600_000)
      // GT: a second token of the job may push its deadline later, never earlier; new entries are added.
      .zadd(liveKey(this.#deps.keys), "GT", deadline, jobId)
      .exec();
  }

  /**
   * The token issued to `jobId` under `lockToken` and its deadline, while it lives (not revoked,
   * deadline not passed); else null. Nothing is minted or extended here.
   */
  async issued(jobId: string, lockToken: string): Promise<{ token: string; deadline: number } | null> {
    const name = tokensKey(this.#deps.keys, jobId);
    const [sealed, score] = await Promise.all([this.#deps.redis.hget(name, lockToken), this.#deps.redis.zscore(liveKey(this.#deps.keys), jobId)]);
    const token = sealed === null ? undefined : this.#deps.box.open(name, sealed);
    const deadline = Number(score ?? Number.NaN);
    return token === undefined || !(deadline > Date.now()) ? null : { token, deadline };
  }

  /** Revokes every token of `jobId` now. A failed revocation is kept and tried again by the sweeper. */
  async revokeJob(jobId: string): Promise<number> {
    const name = tokensKey(this.#deps.keys, jobId);
    const flat = (await this.#deps.redis.eval(TAKE_SCRIPT, 2, name, liveKey(this.#deps.keys), jobId)) as string[];
    let revoked = 0;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const lockToken = flat[i] ?? "";
      const token = this.#deps.box.open(name, flat[i + 1] ?? "");
      if (token === undefined) continue;
      try {
        await this.#deps.revoke(token);
        this.#deps.scrubber.forget(token);
        revoked += 1;
      } catch (err) {
        this.#deps.logger.warn({ err, jobId }, "token revocation failed; retrying later");
        await this.keep(jobId, lockToken, token, Date.now() + RETRY_MS);
      }
    }
    if (revoked > 0) this.#deps.logger.info({ jobId, revoked }, "repository tokens revoked");
    return revoked;
  }

  /** Jobs holding tokens, with their deadlines, oldest first (at most `limit`). */
  async liveJobs(limit: number): Promise<{ jobId: string; deadline: number }[]> {
    const flat = await this.#deps.redis.zrange(liveKey(this.#deps.keys), 0, limit - 1, "WITHSCORES");
    const jobs: { jobId: string; deadline: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) jobs.push({ jobId: flat[i] ?? "", deadline: Number(flat[i + 1]) });
    return jobs;
  }
}

/** `reviewbot:broker:tokens:<jobId>`: api-only, the sealed tokens minted for the job. */
function tokensKey(keys: RedisKeyspace, jobId: string): string {
  return `${keys.ours}:broker:tokens:${jobId}`;
}
