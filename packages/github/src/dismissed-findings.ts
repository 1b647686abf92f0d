import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";

/** The most dismissed fingerprints kept per PR; past it the oldest dismissals are forgotten. */
export const MAX_DISMISSED = 5000;
/** As long as the PR's review memory: a dismissal outlives any PR that is still being pushed to. */
const TTL_SECONDS = 90 * 24 * 3600;
const FINGERPRINT = /^[0-9a-f]{32}$/;

/**
 * The api-only key of a PR's dismissed findings (issue 23, part 3): a sorted set of fingerprints
 * scored by when each was first dismissed, keyed by repository id and PR number, never by a head,
 * so a push or a force-push keeps it. The worker's Redis user has no `reviewbot:dismissed:*`
 * (infra/redis/users.acl.template): a worker can neither read nor write it.
 */
export function dismissedKey(keys: RedisKeyspace, repositoryId: number, pullNumber: number): string {
  return `${keys.ours}:dismissed:${repositoryId}:${pullNumber}`;
}

/**
 * Records fingerprints as dismissed on the PR (a fingerprint dismissed again keeps its first
 * time), forgets the oldest past {@link MAX_DISMISSED} and renews the key's time to live, in one
 * transaction. Anything but a fingerprint is refused: only the api's own fingerprints go in.
 */
export async function dismissFindings(
  redis: RedisClient,
  keys: RedisKeyspace,
  repositoryId: number,
  pullNumber: number,
  fingerprints: readonly string[],
): Promise<void> {
  if (fingerprints.length === 0) return;
  const bad = fingerprints.find((fingerprint) => !FINGERPRINT.test(fingerprint));
  if (bad !== undefined) throw new TypeError(`not a finding fingerprint: ${JSON.stringify(bad.slice(0, 80))}`);
  const key = dismissedKey(keys, repositoryId, pullNumber);
  const now = Date.now();
  await redis
    .multi()
    .zadd(key, "NX", ...fingerprints.flatMap((fingerprint) => [now, fingerprint]))
    .zremrangebyrank(key, 0, -(MAX_DISMISSED + 1))
    .expire(key, TTL_SECONDS)
    .exec();
}

/** The PR's dismissed fingerprints (empty when none); a member that is not a fingerprint is skipped. */
export async function dismissedFingerprints(redis: RedisClient, keys: RedisKeyspace, repositoryId: number, pullNumber: number): Promise<ReadonlySet<string>> {
  const members = await redis.zrange(dismissedKey(keys, repositoryId, pullNumber), 0, -1);
  return new Set(members.filter((member) => FINGERPRINT.test(member)));
}
