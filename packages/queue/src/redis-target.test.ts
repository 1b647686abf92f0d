import { describe, expect, it } from "vitest";
import { z } from "zod";
import { REDIS_KEYSPACE_ENV_FIELDS } from "./redis-keyspace.js";
import { describeRedisTarget, REDIS_ENV_FIELDS, redisSecrets, redisTargetEnv, redisTargetOf } from "./redis-target.js";

/** The target an environment names, or the first issue as `VARIABLE: message`. */
function targetOf(env: Record<string, string>, required = true): unknown {
  const schema = z
    .object({ ...REDIS_ENV_FIELDS, ...REDIS_KEYSPACE_ENV_FIELDS })
    .strict()
    .transform((fields, ctx) => redisTargetOf(fields, ctx, required));
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  return `${String(issue?.path[0])}: ${issue?.message ?? ""}`;
}

describe("the Redis variables", () => {
  it("name one server by URL, with the password apart and REDIS_USERNAME where the URL names no user", () => {
    expect(targetOf({ REDIS_URL: "redis://r:6379", REDIS_PASSWORD: "pw" })).toEqual({ kind: "url", url: "redis://r:6379", password: "pw" });
    expect(targetOf({ REDIS_URL: "redis://r:6379/0", REDIS_USERNAME: "reviewbot-api" })).toMatchObject({ url: "redis://reviewbot-api@r:6379/0" });
  });

  it("name a primary through its Sentinels, with their own password apart from the primary's", () => {
    expect(
      targetOf({
        REDIS_SENTINELS: "s1:26379, s2 ,[::1]:26380",
        REDIS_SENTINEL_NAME: "reviewbot",
        REDIS_USERNAME: "reviewbot-worker",
        REDIS_PASSWORD: "user-pw",
        REDIS_SENTINEL_PASSWORD: "sentinel-pw",
      }),
    ).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26379 },
        { host: "::1", port: 26380 },
      ],
      name: "reviewbot",
      username: "reviewbot-worker",
      password: "user-pw",
      sentinelPassword: "sentinel-pw",
    });
  });

  it("name a Cluster through some of its nodes, whose keys share the prefix's hash tag", () => {
    expect(targetOf({ REDIS_CLUSTER_NODES: "n1, n2:7001", REDIS_USERNAME: "reviewbot-api", REDIS_PASSWORD: "pw", REVIEWBOT_REDIS_PREFIX: "{rb}" })).toEqual({
      kind: "cluster",
      nodes: [
        { host: "n1", port: 6379 },
        { host: "n2", port: 7001 },
      ],
      username: "reviewbot-api",
      password: "pw",
    });
  });

  it.each([
    [
      "both a URL and Sentinels",
      { REDIS_URL: "redis://r", REDIS_SENTINELS: "s:26379", REDIS_SENTINEL_NAME: "m" },
      /^REDIS_URL: set one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES, not REDIS_URL and REDIS_SENTINELS/,
    ],
    [
      "both Sentinels and a Cluster",
      { REDIS_SENTINELS: "s", REDIS_SENTINEL_NAME: "m", REDIS_CLUSTER_NODES: "n", REVIEWBOT_REDIS_PREFIX: "{rb}" },
      /^REDIS_SENTINELS: set one of .*not REDIS_SENTINELS and REDIS_CLUSTER_NODES/,
    ],
    ["a Cluster without a prefix", { REDIS_CLUSTER_NODES: "n" }, /^REVIEWBOT_REDIS_PREFIX: must open with a hash tag/],
    [
      "a Cluster under a prefix without a hash tag",
      { REDIS_CLUSTER_NODES: "n", REVIEWBOT_REDIS_PREFIX: "rb" },
      /^REVIEWBOT_REDIS_PREFIX: must open with a hash tag/,
    ],
    ["a Cluster node that is a URL", { REDIS_CLUSTER_NODES: "redis://n:1", REVIEWBOT_REDIS_PREFIX: "{rb}" }, /^REDIS_CLUSTER_NODES: entry 1 is not host:port/],
    ["neither", {}, /^REDIS_URL: is required \(or REDIS_SENTINELS/],
    ["Sentinels without the primary's name", { REDIS_SENTINELS: "s:26379" }, /^REDIS_SENTINEL_NAME: is required/],
    ["a Sentinel name without Sentinels", { REDIS_URL: "redis://r", REDIS_SENTINEL_NAME: "m" }, /^REDIS_SENTINELS: is required/],
    ["a Sentinel password without Sentinels", { REDIS_URL: "redis://r", REDIS_SENTINEL_PASSWORD: "x" }, /^REDIS_SENTINELS: is required/],
    ["two users", { REDIS_URL: "redis://a@r", REDIS_USERNAME: "b" }, /^REDIS_USERNAME: the URL names a user already/],
    ["a URL that does not parse", { REDIS_URL: "redis://[not-a-host" }, /^REDIS_URL: is not a valid URL/],
    ["a user without a server", { REDIS_USERNAME: "b" }, /^REDIS_URL: is required with REDIS_USERNAME/],
    ["a port out of range", { REDIS_SENTINELS: "s:70000", REDIS_SENTINEL_NAME: "m" }, /^REDIS_SENTINELS: entry 1 is not host:port/],
    ["a bare IPv6 address", { REDIS_SENTINELS: "::1:26379", REDIS_SENTINEL_NAME: "m" }, /^REDIS_SENTINELS: entry 1 is not host:port/],
    ["a URL in the list", { REDIS_SENTINELS: "s:1,redis://x:2", REDIS_SENTINEL_NAME: "m" }, /^REDIS_SENTINELS: entry 2 is not host:port/],
    ["an empty list", { REDIS_SENTINELS: " , ", REDIS_SENTINEL_NAME: "m" }, /^REDIS_SENTINELS: must name 1 to 16/],
    [
      "17 Sentinels",
      { REDIS_SENTINELS: Array.from({ length: 17 }, (_, i) => `s${i}:1`).join(","), REDIS_SENTINEL_NAME: "m" },
      /^REDIS_SENTINELS: must name 1 to 16/,
    ],
    ["a name with a space", { REDIS_SENTINELS: "s", REDIS_SENTINEL_NAME: "my primary" }, /^REDIS_SENTINEL_NAME: must be the primary's name/],
  ])("refuse %s, naming the variable", (_name, env, expected) => {
    expect(targetOf(env)).toMatch(expected);
  });

  it("may name nothing where the app starts its own Redis (the CLI's fleet)", () => {
    expect(targetOf({}, false)).toBeUndefined();
  });

  it("round-trip through a child's environment, and are described without their secrets", () => {
    for (const env of [
      { REDIS_URL: "redis://reviewbot-api@r:6379", REDIS_PASSWORD: "pw" },
      { REDIS_SENTINELS: "s1:26379,[::1]:26380", REDIS_SENTINEL_NAME: "m", REDIS_USERNAME: "u", REDIS_PASSWORD: "pw", REDIS_SENTINEL_PASSWORD: "spw" },
      { REDIS_CLUSTER_NODES: "n1:6379,[::1]:7000", REDIS_USERNAME: "u", REDIS_PASSWORD: "pw" },
    ]) {
      const target = targetOf({ ...env, REVIEWBOT_REDIS_PREFIX: "{rb}" }) as Parameters<typeof redisTargetEnv>[0];
      expect(redisTargetEnv(target)).toEqual(env);
      const described = describeRedisTarget(target);
      for (const secret of redisSecrets(target)) expect(described).not.toContain(secret);
    }
    expect(describeRedisTarget({ kind: "url", url: "redis://u:inline-pw@r:6379" })).toBe("redis://r:6379");
    expect(redisSecrets({ kind: "sentinel", sentinels: [], name: "m", password: "a", sentinelPassword: "b" })).toEqual(["a", "b"]);
  });
});
