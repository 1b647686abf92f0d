/**
 * End-to-end review benchmark. Through the real CLI binary, per engine:
 * (a) a warm-cache `reviewbot review` of the bundled sample: median wall time over BENCH_RUNS runs
 *     after one warm-up, the report's per-stage timings and each helper's own run time, and the
 *     ratio wall time / sum of helpers' run times (target ≤ 2);
 * (b) a PR touching BENCH_FILES (1,000) Python files with a flake8 helper: wall time per stage and
 *     the CLI process's peak RSS (target < 200 MB).
 * Not a test: it asserts nothing, it prints figures.
 *
 *   pnpm --filter @reviewbot/bench bench:review      (BENCH_ENGINES=bwrap to skip Podman)
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Report } from "@reviewbot/review/pipeline/report";
import { createSample, createWidePr } from "./bench-repos.js";
import { runCli, type CliRun } from "./cli-process.js";
import { median } from "./median.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const FILES = Number(process.env.BENCH_FILES ?? 1000);
const ENGINES = (process.env.BENCH_ENGINES ?? "podman,bwrap").split(",");

const ms = (value: number): string => `${value.toFixed(0).padStart(6)} ms`;
const mb = (kib: number): string => `${(kib / 1024).toFixed(1)} MB`;

function review(cacheDir: string, repo: string, engine: string, json: boolean): Promise<CliRun> {
  const args = ["review", "--repo", repo, "--base", "main", "--head", "fork", "--engine", engine, "--fail-level", "none"];
  return runCli(json ? [...args, "--format", "json"] : args, { REVIEWBOT_CACHE_DIR: cacheDir }).then((run) => {
    if (run.status !== 0) throw new Error(`reviewbot exited ${String(run.status)}: ${run.stderr.trim()}`);
    return run;
  });
}

/** Prints the report's stages and helpers; returns the sum of the helpers' own run times. */
function printStages(report: Report, wallMs: number): number {
  const t = report.timings;
  console.log(
    `  stages       checkout+overlay ${ms(t.checkoutMs)}  context ${ms(t.contextMs)}  helpers ${ms(t.helpersMs)}  parse/filter ${ms(t.findingsMs)}  pipeline ${ms(t.totalMs)}`,
  );
  for (const helper of report.helpers) {
    console.log(`  helper       ${helper.name.padEnd(10)} ${ms(helper.durationMs)}  ${helper.outcome}, ${String(helper.findings.length)} finding(s)`);
  }
  console.log(`  findings     ${String(report.findings.length)} kept, ${String(report.filtered.dropped)} dropped`);
  console.log(`  outside      ${ms(wallMs - t.totalMs)}  (node start-up, engine start and readiness probe, rendering)`);
  return report.helpers.reduce((sum, helper) => sum + helper.durationMs, 0);
}

async function sampleBench(root: string, engine: string): Promise<void> {
  const cacheDir = join(root, `cache-${engine}`);
  const sample = createSample(root);
  await review(cacheDir, sample, engine, false); // warm-up: clone cache, bwrap rootfs, page cache
  const walls: number[] = [];
  for (let i = 0; i < RUNS; i += 1) walls.push((await review(cacheDir, sample, engine, false)).wallMs);
  walls.sort((a, b) => a - b);
  const middle = median(walls);
  console.log(`sample, warm cache, --engine ${engine}`);
  console.log(`  wall         median ${ms(middle)}  (min ${ms(walls[0] ?? 0)}, max ${ms(walls.at(-1) ?? 0)}, n=${String(RUNS)})`);
  const run = await review(cacheDir, sample, engine, true);
  const helpersMs = printStages(JSON.parse(run.stdout) as Report, middle);
  console.log(`  ratio        median wall / sum of helpers' run times = ${(middle / helpersMs).toFixed(2)}  (target ≤ 2)`);
  console.log(`  peak RSS     ${mb(run.peakRssKiB)} (CLI process)`);
}

async function widePrBench(root: string, engine: string): Promise<void> {
  const repo = await createWidePr(root, FILES);
  const cacheDir = join(root, `cache-wide-${engine}`);
  for (const label of ["cold", "warm"]) {
    const run = await review(cacheDir, repo, engine, true);
    console.log(`PR touching ${String(FILES)} files, ${label} cache, --engine ${engine}`);
    console.log(`  wall         ${ms(run.wallMs)}`);
    printStages(JSON.parse(run.stdout) as Report, run.wallMs);
    console.log(`  peak RSS     ${mb(run.peakRssKiB)} (CLI process; target < 200 MB)`);
  }
}

/** A fresh directory the sandbox users can traverse, to reach the work trees of caches beneath it. */
async function traversableDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(prefix);
  await chmod(dir, 0o711);
  return dir;
}

const root = await traversableDir(join(tmpdir(), "reviewbot-bench-review-"));
try {
  for (const engine of ENGINES) {
    await sampleBench(await traversableDir(join(root, "sample-")), engine);
    await widePrBench(await traversableDir(join(root, "wide-")), engine);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
