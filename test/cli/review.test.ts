import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "@reviewbot/review/pipeline/report";
import { runCli, type CliResult } from "../support/cli-runner.js";
import { gitText } from "../support/git-env.js";
import { createSampleRepo } from "../support/review-fixture.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { createReviewRepo, printingHelper } from "../support/review-repos.js";

const SAMPLE_FINDINGS = ["app/calc.py:14 warning", "app/calc.py:15 error", "web/greet.ts:10 error", "web/greet.ts:12 error"];
const REPORT_KEYS = ["repo", "base", "head", "engine", "sandboxed", "overlay", "config", "helpers", "findings", "filtered", "errors"];
const HELPER_KEYS = [
  "name",
  "image",
  "engine",
  "sandboxed",
  "exitCode",
  "signal",
  "timedOut",
  "oomKilled",
  "outputTruncated",
  "durationMs",
  "stdout",
  "stderr",
  "findings",
];
const FINDING_KEYS = ["path", "line", "endLine", "column", "severity", "message", "rule", "helper"];

let root = "";
let cacheDir = "";
let sample = "";
let warnings = "";
let gitHome = "";
let sampleState = "";

/** What a review must never change in the repository given to --repo. */
const repoState = (dir: string): string =>
  [
    gitText(gitHome, dir, ["status", "--porcelain", "--ignored"]),
    gitText(gitHome, dir, ["for-each-ref"]),
    gitText(gitHome, dir, ["symbolic-ref", "HEAD"]),
  ].join("\n");

const review = (repo: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runCli(["review", "--repo", repo, "--base", "main", "--head", "fork", ...args], { REVIEWBOT_CACHE_DIR: cacheDir, ...env });

const located = (findings: Report["findings"]): string[] => findings.map((f) => `${f.path}:${String(f.line)} ${f.severity}`).sort();

function parseReport(result: CliResult): Report {
  return JSON.parse(result.stdout) as Report;
}

beforeAll(() => {
  return reachableTempDir("cli-review").then((dir) => {
    root = dir;
    cacheDir = join(root, "cache");
    gitHome = join(root, "git-home");
    sample = createSampleRepo(root);
    sampleState = repoState(sample);
    warnings = createReviewRepo(join(root, "warnings"), {
      helpers: [printingHelper("style", ["src/new.py:1: W1 style only"], { severity: { default: "warning" } })],
      fork: (tree) => {
        tree.write("src/new.py", "x = 1\n");
      },
    }).dir;
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("reviewbot review: reports", () => {
  let podman: CliResult;
  beforeAll(async () => {
    podman = await review(sample, ["--engine", "podman", "--format", "json"]);
  }, 120_000);

  it("exits 1 on the sample at the default fail level, with exactly one JSON document on stdout", () => {
    expect(podman.status, podman.stderr).toBe(1);
    const report = parseReport(podman);
    expect(Object.keys(report)).toEqual(expect.arrayContaining(REPORT_KEYS));
    expect(report).toMatchObject({
      engine: "podman",
      sandboxed: true,
      base: { ref: "main" },
      head: { ref: "fork" },
      overlay: { source: "base", failedClosed: false },
    });
    for (const helper of report.helpers) expect(Object.keys(helper)).toEqual(expect.arrayContaining(HELPER_KEYS));
    for (const finding of report.findings) expect(Object.keys(finding)).toEqual(expect.arrayContaining(FINDING_KEYS));
    expect(located(report.findings)).toEqual(SAMPLE_FINDINGS);
    expect(report.filtered).toMatchObject({ mode: "added", dropped: 3 });
  });

  it("finds the same on bubblewrap as on Podman", async () => {
    const bwrap = await review(sample, ["--engine", "bwrap", "--format", "json"]);
    expect(bwrap.status, bwrap.stderr).toBe(1);
    const report = parseReport(bwrap);
    expect(report).toMatchObject({ engine: "bwrap", sandboxed: true });
    expect(report.findings).toEqual(parseReport(podman).findings);
  }, 120_000);

  it("exits 0 with --fail-level none, and prints the text report grouped by file", async () => {
    const result = await review(sample, ["--engine", "bwrap", "--fail-level", "none"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^app\/calc\.py\n {2}14:\d+ +warning .*\(E711\) \[flake8\]$/m);
    expect(result.stdout).toMatch(/^web\/greet\.ts\n {2}10:\d+ +error .*\(no-var\) \[eslint\]$/m);
    expect(result.stdout).toContain(".ai/review-tools.json, .ai/steal.sh were ignored");
    expect(result.stdout).not.toContain("\u001b[");
  }, 120_000);

  it("prints valid SARIF 2.1.0 with --format sarif", async () => {
    const result = await review(sample, ["--engine", "bwrap", "--format", "sarif"]);
    expect(result.status, result.stderr).toBe(1);
    const sarif = JSON.parse(result.stdout) as {
      version: string;
      runs: {
        tool: { driver: { name: string } };
        results: { level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[] }[];
      }[];
    };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs.map((run) => run.tool.driver.name)).toEqual(["flake8", "eslint"]);
    const results = sarif.runs.flatMap((run) => run.results);
    const levels = { error: "error", warning: "warning", note: "notice" } as Record<string, string>;
    expect(
      results
        .map((r) => {
          const location = r.locations[0]?.physicalLocation;
          return `${location?.artifactLocation.uri ?? ""}:${String(location?.region?.startLine)} ${levels[r.level] ?? r.level}`;
        })
        .sort(),
    ).toEqual(SAMPLE_FINDINGS);
  }, 120_000);

  it("writes the report to --output and prints nothing on stdout", async () => {
    const output = join(root, "report.json");
    const result = await review(sample, ["--engine", "bwrap", "--format", "json", "--output", output]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toBe("");
    expect(located((JSON.parse(await readFile(output, "utf8")) as Report).findings)).toEqual(SAMPLE_FINDINGS);
  }, 120_000);

  it.each([
    ["notice", 1],
    ["warning", 1],
    ["error", 0],
  ])(
    "on a PR with warnings only, --fail-level %s exits %i",
    async (level, status) => {
      const result = await review(warnings, ["--engine", "bwrap", "--format", "json", "--fail-level", level]);
      expect(result.status, result.stderr).toBe(status);
      expect(located(parseReport(result).findings)).toEqual(["src/new.py:1 warning"]);
    },
    120_000,
  );

  it("runs unsandboxed only under REVIEWBOT_SANDBOX=off --engine none, and says so", async () => {
    const result = await review(warnings, ["--engine", "none", "--format", "json"], { REVIEWBOT_SANDBOX: "off" });
    expect(result.status, result.stderr).toBe(0);
    const report = parseReport(result);
    expect(report).toMatchObject({ engine: "none", sandboxed: false });
    expect(report.helpers.map((h) => [h.name, h.sandboxed])).toEqual([["style", false]]);
  }, 120_000);

  it("never modifies the repository given to --repo", () => {
    expect(repoState(sample)).toBe(sampleState);
  });
});
