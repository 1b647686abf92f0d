import { randomInt } from "node:crypto";
import { dismissedCount } from "@reviewbot/github/dismissed-count";
import { MAX_DISMISSED, dismissFindings, dismissedFingerprints, dismissedKey } from "@reviewbot/github/dismissed-findings";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The api's record of the findings trusted people dismissed on a PR (issue 23, part 3), in a real
// Redis with the project's ACL users: written and read as the api's user; the worker's is refused.
let redis: LocalRedis;
let admin: Redis;
let api: Redis;
let worker: Redis;

beforeAll(async () => {
  redis = await startLocalRedis({ acl: true });
  const roles = redis.roles;
  if (roles === null) throw new Error("redis started without ACL users");
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  api = createRedisConnection(roles.api.url, { name: "test-api", blocking: false, password: roles.api.password });
  worker = createRedisConnection(roles.worker.url, { name: "test-worker", blocking: false, password: roles.worker.password });
});
afterAll(async () => {
  admin.disconnect();
  api.disconnect();
  worker.disconnect();
  await redis.stop();
});

const pr = (): { repositoryId: number; pullNumber: number } => ({ repositoryId: randomInt(1, 2 ** 31), pullNumber: randomInt(1, 10_000) });
const print = (n: number): string => n.toString(16).padStart(32, "0");

describe("dismissed findings of a PR", () => {
  it("are kept per repository and PR (never per head), counted, and dismissing twice is dismissing once", async () => {
    const { repositoryId, pullNumber } = pr();
    expect(await dismissedCount(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toBe(0);
    await dismissFindings(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, [print(1), print(2)]);
    await dismissFindings(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, [print(2)]);
    expect(await dismissedFingerprints(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(new Set([print(1), print(2)]));
    expect(await dismissedCount(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toBe(2);
    expect(await dismissedCount(api, DEFAULT_KEYSPACE, repositoryId, pullNumber + 1)).toBe(0);
    expect(dismissedKey(DEFAULT_KEYSPACE, repositoryId, pullNumber)).toBe(`reviewbot:dismissed:${String(repositoryId)}:${String(pullNumber)}`);
    // As long-lived as the review memory: 90 days.
    expect(await admin.ttl(dismissedKey(DEFAULT_KEYSPACE, repositoryId, pullNumber))).toBeGreaterThan(89 * 24 * 3600);
  });

  it(`keeps at most ${String(MAX_DISMISSED)}, forgetting the oldest`, async () => {
    const { repositoryId, pullNumber } = pr();
    const key = dismissedKey(DEFAULT_KEYSPACE, repositoryId, pullNumber);
    // The oldest first, by their scores (the time each was first dismissed).
    await admin.zadd(key, ...Array.from({ length: MAX_DISMISSED }, (_, i) => [i, print(i)]).flat());
    await dismissFindings(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, [print(MAX_DISMISSED)]);
    const kept = await dismissedFingerprints(api, DEFAULT_KEYSPACE, repositoryId, pullNumber);
    expect(kept.size).toBe(MAX_DISMISSED);
    expect(kept.has(print(0))).toBe(false);
    expect(kept.has(print(MAX_DISMISSED))).toBe(true);
  });

  it("refuses anything but a fingerprint, and skips a stored member that is not one", async () => {
    const { repositoryId, pullNumber } = pr();
    await expect(dismissFindings(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, ["not a fingerprint"])).rejects.toThrow(/not a finding fingerprint/);
    await admin.zadd(dismissedKey(DEFAULT_KEYSPACE, repositoryId, pullNumber), 1, "junk", 2, print(7));
    expect(await dismissedFingerprints(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(new Set([print(7)]));
  });

  it("the worker's user is connected and may do its own work (negative control)", async () => {
    expect(await worker.set("reviewbot:lease:dismissed-test", "x", "PX", 1000)).toBe("OK");
  });

  const victim = pr();
  const key = dismissedKey(DEFAULT_KEYSPACE, victim.repositoryId, victim.pullNumber);
  it.each([
    ["ZADD (dismissing a finding)", ["zadd", key, "1", print(9)]],
    ["ZREM (undismissing one)", ["zrem", key, print(1)]],
    ["ZRANGE", ["zrange", key, "0", "-1"]],
    ["ZCARD", ["zcard", key]],
    ["DEL", ["del", key]],
    ["a script that declares it", ["eval", "return redis.call('ZADD', KEYS[1], 1, 'x')", "1", key]],
    ["a script that reaches it undeclared", ["eval", `return redis.call('DEL', '${key}')`, "0"]],
  ])("the worker's user is refused %s (NOPERM)", async (_name, command) => {
    await dismissFindings(api, DEFAULT_KEYSPACE, victim.repositoryId, victim.pullNumber, [print(1)]);
    const [name = "", ...args] = command;
    await expect(worker.call(name, ...args)).rejects.toThrow(/NOPERM|no permissions|can't access/);
    expect(await dismissedFingerprints(api, DEFAULT_KEYSPACE, victim.repositoryId, victim.pullNumber)).toEqual(new Set([print(1)]));
  });
});
