import { execFile } from "node:child_process";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
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

const LOAD_DOCKER = fileURLToPath(new URL("../../infra/images/load-docker.sh", import.meta.url));

describe("reviewbot fleet", () => {
  it.each([
    ["bwrap", (): Promise<void> => Promise.resolve()],
    // The worker's own private dockerd keeps its data under the cache: the images go there first,
    // as scripts/setup.sh loads them for the default cache.
    [
      "docker",
      async (): Promise<void> => {
        await promisify(execFile)(LOAD_DOCKER, [join(cache, "sandbox", "docker")], { maxBuffer: 1 << 20 });
      },
    ],
  ] as const)(
    "reviews the bundled sample on --engine %s through a private Redis, the API and a worker, prints the result and stops everything",
    async (engine, prepare) => {
      await prepare();
      const result = await runCli(["fleet", "--exit", "--engine", engine], { REVIEWBOT_CACHE_DIR: cache }, 300_000);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      const annotations = result.stdout
        .split("\n")
        .filter((line) => line.startsWith("  "))
        .map((line) => line.trim().split(/\s+/).slice(0, 2).join(" "))
        .sort();
      expect(annotations).toEqual(["app/calc.py:14 warning", "app/calc.py:15 failure", "web/greet.ts:10 failure", "web/greet.ts:12 failure"]);
      expect(result.stdout).toMatch(/^3 errors, 1 warning: failure$/m);
      expect(result.stdout).toMatch(/^dashboard: http:\/\/127\.0\.0\.1:\d+\/admin\/queues {2}\(user admin, password \S{20,}\)$/m);
      // The private Redis and its data are gone, and no fleet process (nor the worker's dockerd) outlived the command.
      expect((await readdir(join(cache, "fleet"))).filter((name) => name.startsWith("redis-"))).toEqual([]);
      expect(await hostProcessesMarked(join(cache, "fleet"))).toEqual([]);
      expect(await hostProcessesMarked(join(cache, "sandbox", "docker"))).toEqual([]);
    },
  );

  it("submit needs REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES", async () => {
    const result = await runCli(["submit", "--repo-dir", cache, "--repository", "a/b", "--pull", "1", "--base", "main", "--head", "fork"], {
      REVIEWBOT_CACHE_DIR: cache,
    });
    expect([result.status, result.stderr]).toEqual([
      2,
      "reviewbot: CONFIG_INVALID: REDIS_URL: required by submit, or REDIS_SENTINELS or REDIS_CLUSTER_NODES (the api's Redis user)\n",
    ]);
  });
});
