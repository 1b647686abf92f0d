import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { PRIMARY_NAME, startRedisSentinelSet, type RedisSentinelSet } from "../support/redis-sentinel.js";
import { waitForRedis } from "../support/local-redis.js";

// docs/deployment.md, "Redis behind Sentinel": a failover that demotes the primary (rather than
// killing it) leaves connections on a server that now answers writes with READONLY.
let dir: string;
let set: RedisSentinelSet;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "reviewbot-demotion-"));
  set = await startRedisSentinelSet(dir);
}, 60_000);

afterAll(async () => {
  await set.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a primary demoted by a Sentinel failover", () => {
  it("loses no write of a connection through the Sentinels; a URL connection to it gets READONLY (negative control)", async () => {
    const roles = set.primary.roles ?? (undefined as never);
    const followed = createRedisConnection(set.target("api"), { name: "demotion", blocking: false });
    const pinned = createRedisConnection(roles.api.url, { name: "pinned", blocking: false, password: roles.api.password });
    for (const connection of [followed, pinned]) connection.on("error", () => undefined);
    try {
      await followed.set("reviewbot:demotion:0", "0");
      await pinned.set("reviewbot:demotion:pinned", "0");
      expect(await set.command("SENTINEL", "FAILOVER", PRIMARY_NAME)).toBe("OK");
      // Writes go on, one after another, across the switch.
      const failures: string[] = [];
      let written = 0;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; written++) {
        await followed.set(`reviewbot:demotion:${written}`, String(written)).catch((err: unknown) => failures.push(String(err)));
        if ((await set.primaryPort()) === set.replica.port && (await set.primary.command("ROLE")).startsWith("slave")) break;
      }
      await waitForRedis(() => followed.set("reviewbot:demotion:after", "1").then(() => true), "a write after the switch");
      expect(failures).toEqual([]);
      expect(await set.replica.command("GET", "reviewbot:demotion:after")).toBe("1");
      await expect(pinned.set("reviewbot:demotion:pinned", "1")).rejects.toThrow(/READONLY/);
    } finally {
      followed.disconnect();
      pinned.disconnect();
    }
  }, 60_000);
});
