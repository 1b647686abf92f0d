import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { randomInt } from "node:crypto";
import { MAX_REMEMBERED_COMMENTS, readReviewMemory, reviewMemoryKey, writeReviewMemory, type ReviewMemory } from "@reviewbot/github/review-memory";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The api's memory of a PR's reviews (so a push does not bring the same remarks again), in a real
// Redis with the project's ACL users: written and read as the api's user, as the publisher and the
// claim handler do.
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

const EMPTY: ReviewMemory = { reviewedHead: null, witness: [], ai: [], posted: {}, comments: [] };

/** A PR of its own for each test: a random repository id. */
const pr = (): { repositoryId: number; pullNumber: number } => ({ repositoryId: randomInt(1, 2 ** 31), pullNumber: randomInt(1, 10_000) });

const aiFinding: PlacedAiFinding = {
  path: "src/a.ts",
  side: "RIGHT",
  startLine: null,
  line: 12,
  severity: "warning",
  category: "bug",
  title: "Off by one",
  body: "The loop stops one short.",
  suggestion: null,
  anchor: "0123456789abcdef",
};

const memory: ReviewMemory = {
  reviewedHead: "a".repeat(40),
  witness: [{ headSha: "a".repeat(40), since: null, baseSha: "b".repeat(40), diffs: ["c".repeat(64)] }],
  ai: [{ finding: aiFinding, fingerprint: "1".repeat(32) }],
  posted: { ["1".repeat(32)]: 101, ["2".repeat(32)]: 102 },
  comments: [101, 102, 103],
};

describe("review memory", () => {
  it("is empty for a PR never reviewed", async () => {
    const { repositoryId, pullNumber } = pr();
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(EMPTY);
  });

  it("reads back what was written, under the PR's own key, for ninety days", async () => {
    const { repositoryId, pullNumber } = pr();
    await writeReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, memory);
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(memory);
    // Another PR of the same repository has none.
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber + 1)).toEqual(EMPTY);
    const ttl = await admin.ttl(reviewMemoryKey(DEFAULT_KEYSPACE, repositoryId, pullNumber));
    expect(ttl).toBeGreaterThan(89 * 24 * 3600);
    expect(ttl).toBeLessThanOrEqual(90 * 24 * 3600);
  });

  const valid = JSON.stringify(memory);
  it.each([
    ["text that is not JSON", "{not json"],
    ["JSON null", "null"],
    ["an array", "[]"],
    ["a cut-off record", valid.slice(0, valid.length - 3)],
    ["an unknown key", JSON.stringify({ ...memory, admin: true })],
    ["a missing key", JSON.stringify({ reviewedHead: null, ai: [], posted: {} })],
    ["a head that is not a SHA", JSON.stringify({ ...memory, reviewedHead: "main" })],
    ["a witnessed diff piece that is not a digest", JSON.stringify({ ...memory, witness: [{ ...memory.witness[0], diffs: ["x"] }] })],
    ["a posted fingerprint of the wrong length", JSON.stringify({ ...memory, posted: { ["1".repeat(31)]: 1 } })],
    ["a comment id that is not a positive integer", JSON.stringify({ ...memory, comments: [1, -2] })],
    ["a comment id given as a string", JSON.stringify({ ...memory, posted: { ["1".repeat(32)]: "101" } })],
    ["an AI finding with an unknown field", JSON.stringify({ ...memory, ai: [{ finding: { ...aiFinding, extra: 1 }, fingerprint: "1".repeat(32) }] })],
    [
      "more comment ids than are ever written",
      JSON.stringify({ ...memory, comments: Array.from({ length: MAX_REMEMBERED_COMMENTS + 1 }, (_, index) => index + 1) }),
    ],
  ])("reads as empty when what is stored is %s: a whole review, and posting again, never a crash", async (_name, stored) => {
    const { repositoryId, pullNumber } = pr();
    await admin.set(reviewMemoryKey(DEFAULT_KEYSPACE, repositoryId, pullNumber), stored);
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(EMPTY);
    // And it is rebuilt by the next write.
    await writeReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, memory);
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual(memory);
  });

  it("reads a memory written before there was a witness with none: the next review is whole, the posted comments are kept", async () => {
    const { repositoryId, pullNumber } = pr();
    const older = { reviewedHead: memory.reviewedHead, ai: memory.ai, posted: memory.posted, comments: memory.comments };
    await admin.set(reviewMemoryKey(DEFAULT_KEYSPACE, repositoryId, pullNumber), JSON.stringify(older));
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber)).toEqual({ ...memory, witness: [] });
  });

  it("keeps the newest MAX_REMEMBERED_COMMENTS comment ids, forgetting the oldest", async () => {
    const { repositoryId, pullNumber } = pr();
    const comments = Array.from({ length: MAX_REMEMBERED_COMMENTS + 250 }, (_, index) => index + 1);
    await writeReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, { ...memory, comments });
    const read = await readReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber);
    expect(read.comments).toHaveLength(MAX_REMEMBERED_COMMENTS);
    expect(read.comments[0]).toBe(251);
    expect(read.comments.at(-1)).toBe(MAX_REMEMBERED_COMMENTS + 250);
    expect(read.posted).toEqual(memory.posted);
  });

  it("refuses to write a memory that would not read back", async () => {
    const { repositoryId, pullNumber } = pr();
    await expect(writeReviewMemory(api, DEFAULT_KEYSPACE, repositoryId, pullNumber, { ...memory, reviewedHead: "not a sha" })).rejects.toThrow();
    expect(await admin.exists(reviewMemoryKey(DEFAULT_KEYSPACE, repositoryId, pullNumber))).toBe(0);
  });
});

describe("the memory's key under the Redis ACL users", () => {
  // The key the ACL must keep from workers: what the api writes for repository 1, PR 2.
  const key = reviewMemoryKey(DEFAULT_KEYSPACE, 1, 2);

  it("is the key these tests attack", () => {
    expect(key).toBe("reviewbot:memory:1:2");
  });

  it("the api's user reads, writes and deletes it (negative control)", async () => {
    expect(await api.call("acl", "whoami")).toBe("reviewbot-api");
    expect(await api.set(key, JSON.stringify(memory))).toBe("OK");
    expect(await api.get(key)).toBe(JSON.stringify(memory));
    expect(await api.del(key)).toBe(1);
  });

  it("the worker's user is connected and may do its own work (negative control)", async () => {
    // The admin says who the connection is (ACL WHOAMI is not on the worker's command allowlist).
    const id = String(await worker.call("client", "id"));
    expect(String(await admin.call("client", "list", "id", id))).toMatch(/ user=reviewbot-worker /);
    expect(await worker.set("reviewbot:lease:memory-test", "x", "PX", 1000)).toBe("OK");
  });

  it.each([
    ["GET", ["get", key]],
    ["SET", ["set", key, JSON.stringify({ ...memory, posted: {} })]],
    ["DEL", ["del", key]],
    ["EXISTS", ["exists", key]],
    ["EXPIRE", ["expire", key, "1"]],
    ["a COPY of its own key over it", ["copy", "reviewbot:lease:memory-test", key, "replace"]],
    ["a RENAME of its own key to it", ["rename", "reviewbot:lease:memory-test", key]],
    ["a DUMP of it", ["dump", key]],
    ["a script that declares it", ["eval", "return redis.call('GET', KEYS[1])", "1", key]],
    ["a script that reaches it undeclared", ["eval", `return redis.call('DEL', '${key}')`, "0"]],
  ])("the worker's user is refused %s (NOPERM)", async (_name, command) => {
    await admin.set(key, JSON.stringify(memory));
    await worker.set("reviewbot:lease:memory-test", "x", "PX", 10_000);
    const [name = "", ...args] = command;
    // NOPERM, or its wording for scripts ("can't access", "no permissions").
    await expect(worker.call(name, ...args)).rejects.toThrow(/NOPERM|no permissions|can't access/);
    // Whatever the worker tried, the api's memory is as the api left it.
    expect(await readReviewMemory(api, DEFAULT_KEYSPACE, 1, 2)).toEqual(memory);
  });
});
