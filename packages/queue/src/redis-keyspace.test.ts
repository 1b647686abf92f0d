import { describe, expect, it } from "vitest";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { z } from "zod";
import { DEFAULT_KEYSPACE, REDIS_KEYSPACE_ENV_FIELDS, redisKeyspace } from "./redis-keyspace.js";

const schema = z.object(REDIS_KEYSPACE_ENV_FIELDS).strict();

describe("redisKeyspace", () => {
  it("keeps today's names when no prefix is set", () => {
    expect(redisKeyspace(undefined)).toEqual({ ours: "reviewbot", bull: "bull" });
    expect(redisKeyspace(undefined)).toBe(DEFAULT_KEYSPACE);
  });

  it.each([
    ["{reviewbot}", { ours: "{reviewbot}", bull: "{reviewbot}:bull" }],
    ["{rb}:staging", { ours: "{rb}:staging", bull: "{rb}:staging:bull" }],
    ["team-a.reviewbot", { ours: "team-a.reviewbot", bull: "team-a.reviewbot:bull" }],
  ])("puts ours and BullMQ's keys under %s", (prefix, expected) => {
    expect(redisKeyspace(prefix)).toEqual(expected);
  });
});

describe("REVIEWBOT_REDIS_PREFIX", () => {
  it.each([
    ["a space", "review bot"],
    ["a glob star", "reviewbot*"],
    ["a question mark", "review?bot"],
    ["a bracket", "[rb]"],
    ["a closing bracket", "rb]"],
    ["a newline", "rb\nuser evil on"],
    ["a backslash", "rb\\x"],
    ["an ampersand (sed's replacement)", "rb&"],
    ["a slash (sed's delimiter)", "rb/x"],
    ["an empty hash tag", "{}rb"],
    ["a brace after the start", "rb{x}"],
    ["two hash tags", "{a}{b}"],
    ["an unclosed hash tag", "{rb"],
    ["a trailing colon", "{rb}:"],
    ["the empty string", ""],
    ["65 characters", "x".repeat(65)],
  ])("is refused with %s, naming the variable and not the value", (_, value) => {
    expect(() => parseEnvConfig(schema, { REVIEWBOT_REDIS_PREFIX: value })).toThrow(/^REVIEWBOT_REDIS_PREFIX: /);
  });

  it.each(["{reviewbot}", "reviewbot", "{rb}:prod", "a_b.c-d"])("accepts %s", (value) => {
    expect(parseEnvConfig(schema, { REVIEWBOT_REDIS_PREFIX: value }).REVIEWBOT_REDIS_PREFIX).toBe(value);
  });

  it("is optional", () => {
    expect(parseEnvConfig(schema, {}).REVIEWBOT_REDIS_PREFIX).toBeUndefined();
  });
});
