import { chmod, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli-runner.js";
import { createSampleRepo } from "../support/review-fixture.js";
import { reachableTempDir } from "../support/temp-dirs.js";

let root = "";
let sample = "";

beforeAll(async () => {
  root = await reachableTempDir("cli-review-errors");
  sample = createSampleRepo(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A review of the sample with `overrides` replacing options; the cache is the suite's own unless env says otherwise. */
function review(overrides: Readonly<Record<string, string>>, extra: readonly string[] = [], env: Record<string, string> = {}) {
  const options = { "--repo": sample, "--base": "main", "--head": "fork", "--engine": "bwrap", ...overrides };
  const args = Object.entries(options).flatMap(([name, value]) => (value === "" ? [] : [name, value]));
  return runCli(["review", ...args, ...extra], { REVIEWBOT_CACHE_DIR: join(root, "cache"), ...env });
}

describe("reviewbot review: exit 2 with a one-line reason", () => {
  it.each([
    ["a missing repository path", { "--repo": "/nonexistent/reviewbot-repo" }, {}, /nonexistent\/reviewbot-repo/],
    ["an unknown ref", { "--head": "no-such-branch" }, {}, /no-such-branch/],
    [
      "an engine that is not available under require",
      { "--engine": "docker" },
      { REVIEWBOT_DOCKER_SOCKET: "/nonexistent/docker.sock" },
      /^reviewbot: SANDBOX_UNAVAILABLE: .*docker: .*nonexistent/,
    ],
  ])(
    "for %s",
    async (_case, overrides, env, reason) => {
      const result = await review(overrides, [], env);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(reason);
    },
    120_000,
  );

  it("for bubblewrap whose cache the sandbox user cannot reach, naming that reason", async () => {
    const hidden = join(root, "hidden");
    const cacheDir = join(hidden, "cache");
    await mkdir(cacheDir, { recursive: true });
    await chmod(hidden, 0o700);
    const result = await review({}, [], { REVIEWBOT_CACHE_DIR: cacheDir });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^reviewbot: SANDBOX_UNAVAILABLE: .*bwrap: .*not searchable by the sandbox user/);
  }, 120_000);

  it.each([
    ["--engine none without REVIEWBOT_SANDBOX=off", { "--engine": "none" }, [], /^reviewbot: USAGE: --engine none .*REVIEWBOT_SANDBOX=off$/m],
    ["an unknown option", {}, ["--bogus"], /^reviewbot: USAGE: .*--bogus/],
    ["a missing --head", { "--head": "" }, [], /^reviewbot: USAGE: --repo, --base and --head are required$/m],
  ])("for %s, followed by the usage", async (_case, overrides, extra, reason) => {
    const result = await review(overrides, extra);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")[0]).toMatch(reason);
    expect(result.stderr).toContain("usage: reviewbot <command> [options]");
  });
});
