import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";

// The ACL users rendered under REVIEWBOT_REDIS_PREFIX={rb} (infra/redis/users.acl.template), in a
// real Redis: each role reaches its keys under the prefix, and nothing it reached under the old
// names or under another role's part of the prefix.
const keys = redisKeyspace("{rb}");
let redis: LocalRedis;
let api: Redis;
let worker: Redis;

beforeAll(async () => {
  redis = await startLocalRedis({ acl: true, keys });
  const roles = redis.roles;
  if (roles === null) throw new Error("redis started without ACL users");
  api = createRedisConnection(roles.api.url, { name: "test-api", blocking: false, password: roles.api.password });
  worker = createRedisConnection(roles.worker.url, { name: "test-worker", blocking: false, password: roles.worker.password });
});
afterAll(async () => {
  api.disconnect();
  worker.disconnect();
  await redis.stop();
});

const refused = /NOPERM|no permissions|can't access/;

describe("Redis users under a key prefix", () => {
  it.each([
    ["the review queue", ["set", `${keys.bull}:reviews:1:lock`, "x"]],
    ["a PR lease", ["set", `${keys.ours}:lease:1.2`, "x"]],
    ["a PR's head (read)", ["hget", `${keys.ours}:pr:1.2`, "head"]],
    ["the cancel channel", ["subscribe", `${keys.ours}:cancel`]],
  ])("the worker reaches %s", async (_name, [command = "", ...args]) => {
    const connection = worker.duplicate();
    try {
      // Refused, this throws NOPERM.
      await connection.call(command, ...args);
    } finally {
      connection.disconnect();
    }
  });

  it.each([
    ["the publisher queue", ["set", `${keys.bull}:github:1`, "x"]],
    ["a claim (api-only)", ["hget", `${keys.ours}:broker:claim:1`, "lock"]],
    ["a PR's head (write)", ["hset", `${keys.ours}:pr:1.2`, "head", "x"]],
    ["the old review queue name", ["set", "bull:reviews:1:lock", "x"]],
    ["the old lease name", ["set", "reviewbot:lease:1.2", "x"]],
    ["the old cancel channel", ["subscribe", "reviewbot:cancel"]],
    ["a script that reaches an api-only key undeclared", ["eval", `return redis.call('GET', '${keys.ours}:outcome:1')`, "0"]],
  ])("the worker is refused %s", async (_name, [command = "", ...args]) => {
    const connection = worker.duplicate();
    try {
      await expect(connection.call(command, ...args)).rejects.toThrow(refused);
    } finally {
      connection.disconnect();
    }
  });

  it("gives the api both queues and all of ours under the prefix, and nothing under the old names", async () => {
    await expect(api.set(`${keys.ours}:delivery:1`, "x")).resolves.toBe("OK");
    await expect(api.set(`${keys.bull}:github:1`, "x")).resolves.toBe("OK");
    await expect(api.publish(`${keys.ours}:cancel`, "1")).resolves.toBe(0);
    await expect(api.set("reviewbot:delivery:1", "x")).rejects.toThrow(refused);
    await expect(api.set("bull:github:1", "x")).rejects.toThrow(refused);
    await expect(api.publish("reviewbot:cancel", "1")).rejects.toThrow(refused);
  });
});
