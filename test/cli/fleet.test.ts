import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli-runner.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { reachableTempDir } from "../support/temp-dirs.js";

let cache = "";
beforeAll(async () => {
  cache = await reachableTempDir("cli-fleet");
});
afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

describe("reviewbot fleet", () => {
  it("reviews the bundled sample through a private Redis, the API and a worker, prints the result and stops everything", async () => {
    const result = await runCli(["fleet", "--exit"], { REVIEWBOT_CACHE_DIR: cache, REVIEWBOT_ENGINE: "bwrap" }, 300_000);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const annotations = result.stdout.split("\n").filter((line) => line.startsWith("  ")).map((line) => line.trim().split(/\s+/).slice(0, 2).join(" ")).sort();
    expect(annotations).toEqual(["app/calc.py:14 warning", "app/calc.py:15 failure", "web/greet.ts:10 failure", "web/greet.ts:12 failure"]);
    expect(result.stdout).toMatch(/^3 errors, 1 warning: failure$/m);
    expect(result.stdout).toMatch(/^dashboard: http:\/\/127\.0\.0\.1:\d+\/admin\/queues {2}\(user admin, password \S{20,}\)$/m);
    // The private Redis and its data are gone, and no fleet process outlived the command.
    expect((await readdir(join(cache, "fleet"))).filter((name) => name.startsWith("redis-"))).toEqual([]);
    expect(await hostProcessesMarked(join(cache, "fleet"))).toEqual([]);
  });

  it("submit needs REDIS_URL", async () => {
    const result = await runCli(["submit", "--repo-dir", cache, "--repository", "a/b", "--pull", "1", "--base", "main", "--head", "fork"], { REVIEWBOT_CACHE_DIR: cache });
    expect([result.status, result.stderr]).toEqual([2, "reviewbot: CONFIG_INVALID: REDIS_URL: required by submit (the api's Redis user)\n"]);
  });
});
