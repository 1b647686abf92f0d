import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "@reviewbot/review/pipeline/report";
import { runCli } from "../support/cli-runner.js";
import type { Upstream } from "../support/git-fixture.js";
import { createReviewRepo, printingHelper } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// `reviewbot review` knows no default branch: `.ai/` comes from `--base` unless `--config-ref`
// names the ref whose head is trusted, as the fleet trusts the default branch's.

let root = "";
let upstream: Upstream;

beforeAll(async () => {
  root = await reachableTempDir("cli-config-ref");
  upstream = createReviewRepo(join(root, "repo"), {
    helpers: [printingHelper("strict", ["src/new.py:1: E1 caught by main's helper"])],
    fork: () => undefined,
  });
  // A stale branch whose `.ai/` runs nothing, and the PR against it.
  upstream.git(["branch", "stale", "main"]);
  upstream.commitOn(
    "stale",
    (tree) => {
      tree.write(".ai/review-tools.json", '{"helpers":[]}\n');
    },
    "weaken .ai/",
  );
  upstream.git(["branch", "--force", "fork", "stale"]);
  upstream.commitOn(
    "fork",
    (tree) => {
      tree.write("src/new.py", "x = 1\n");
    },
    "the PR",
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (command: "review" | "checkout", extra: readonly string[]) =>
  runCli([command, "--repo", upstream.dir, "--base", "stale", "--head", "fork", "--format", "json", ...extra], { REVIEWBOT_CACHE_DIR: join(root, "cache") });

describe("reviewbot review --config-ref", () => {
  it("runs the helpers of the config ref's head on a PR against a stale branch", async () => {
    const result = await run("review", ["--engine", "bwrap", "--config-ref", "main", "--fail-level", "notice"]);
    expect(result.status, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.overlay).toMatchObject({ source: "ref", commit: { from: "ref", ref: "main", sha: upstream.rev("main") } });
    expect(report.helpers.map((helper) => helper.name)).toEqual(["strict"]);
    expect(report.findings.map((finding) => `${finding.path}:${String(finding.line)}`)).toEqual(["src/new.py:1"]);
  }, 120_000);

  it("negative control: without it, the base's .ai/ is used (here: nothing runs)", async () => {
    const result = await run("review", ["--engine", "bwrap", "--fail-level", "notice"]);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.overlay).toMatchObject({ source: "base", commit: { from: "base", ref: "stale", sha: upstream.rev("stale") } });
    expect(report.helpers).toEqual([]);
  }, 120_000);

  it("is taken by checkout too", async () => {
    const result = await run("checkout", ["--config-ref", "main"]);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ overlay: { source: "ref", commit: { ref: "main", sha: upstream.rev("main") } } });
  });
});
