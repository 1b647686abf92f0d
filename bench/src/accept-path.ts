/**
 * Accept-path benchmark (issue 25, part 5): the api and a Redis as real processes, and signed
 * `pull_request` deliveries. For each api build, prints the accept latency (p50/p99), the rate
 * achieved and the CPU the api and Redis spent per delivery (from /proc), in: an open loop at each
 * rate of `BENCH_WEBHOOK_RATES` (200 and 1,000/s, `BENCH_WEBHOOKS` = 5,000 each, after 1,000
 * uncounted at 200/s), then a closed loop of 64 in flight, one PR per delivery (the most the api
 * answers). `BENCH_API_ROOTS` (comma-separated checkouts, built; default this one) compares builds:
 * each of `BENCH_ROUNDS` (3) rounds runs every build in turn on a fresh Redis, so a noisy machine
 * hits them alike, and the medians per build end the output. `BENCH_CPU_PROF=<dir>` runs each api
 * under `node --cpu-prof` and prints its top-10 functions by self time and by the step of ours
 * that caused the time.
 *
 * Run: `pnpm --filter @reviewbot/bench bench:accept` (after `pnpm turbo run build`).
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { topProfileEntries } from "./cpu-profile-top.js";
import { startProcess, startRedis, type FleetProcess } from "./fleet-process.js";
import { median } from "./median.js";
import { percentile } from "./percentile.js";
import { processCpuMicros } from "./process-cpu.js";
import { closedLoop, openLoop, statusesOf, type LoadResult, type WebhookTarget } from "./webhook-load.js";

const RATES = (process.env.BENCH_WEBHOOK_RATES ?? "200,1000").split(",").map(Number);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOTS = (process.env.BENCH_API_ROOTS ?? fileURLToPath(new URL("../../", import.meta.url))).split(",").map((root) => resolve(root));
const PROFILE_DIR = process.env.BENCH_CPU_PROF === undefined ? null : resolve(process.env.BENCH_CPU_PROF);
const IN_FLIGHT = 64;

/** One run's figures: latency in ms, rate per second, CPU per delivery in µs. */
interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
  readonly apiMicros: number;
  readonly redisMicros: number;
}

/** Runs `load` and takes its figures with the CPU `api` and `redis` spent per delivery in it. */
async function measured(label: string, api: FleetProcess, redis: FleetProcess, load: () => Promise<LoadResult>): Promise<Figures> {
  const pids = [api.child.pid ?? 0, redis.child.pid ?? 0];
  const before = await Promise.all(pids.map(processCpuMicros));
  const run = await load();
  const after = await Promise.all(pids.map(processCpuMicros));
  const [apiMicros = 0, redisMicros = 0] = after.map((micros, index) => (micros - (before[index] ?? 0)) / run.sorted.length);
  const figures = { p50: percentile(run.sorted, 50), p99: percentile(run.sorted, 99), perSecond: run.perSecond, apiMicros, redisMicros };
  console.log(`  ${label}: ${line(figures)}, statuses ${statusesOf(run)}`);
  return figures;
}

function line(f: Figures): string {
  return `achieved ${f.perSecond.toFixed(0)}/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms, CPU per delivery: api ${f.apiMicros.toFixed(0)} µs, redis ${f.redisMicros.toFixed(0)} µs`;
}

/** A fresh Redis and the api of `root`; every run in turn; their figures by run label. */
async function runBuild(root: string, profileDir: string | null): Promise<Map<string, Figures>> {
  const dir = await mkdtemp(join(tmpdir(), "reviewbot-bench-accept-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const secret = randomBytes(16).toString("hex");
  const redis = startRedis(dir, port);
  const processes: FleetProcess[] = [redis];
  const figures = new Map<string, Figures>();
  try {
    await redis.waitFor(/Ready to accept connections/);
    const env = {
      REDIS_URL: `redis://127.0.0.1:${String(port)}`,
      REVIEWBOT_LOG_LEVEL: "info",
      REVIEWBOT_PORT: "0",
      REVIEWBOT_WEBHOOK_SECRET: secret,
      REVIEWBOT_SINK: "local",
      REVIEWBOT_LOCAL_SINK_DIR: join(dir, "sink"),
    };
    const profile = profileDir === null ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
    const api = startProcess([process.execPath, ...profile, join(root, "apps/api/dist/main.js")], env);
    processes.push(api);
    const apiPort = (JSON.parse(await api.waitFor(/"api listening"/)) as { port: number }).port;
    // The api only records heads (it clones nothing): any two 40-hex names.
    const heads = { baseSha: randomBytes(20).toString("hex"), headSha: randomBytes(20).toString("hex") };
    const target: WebhookTarget = { apiUrl: `http://127.0.0.1:${String(apiPort)}`, secret, repository: "bench/noop", heads };
    // Warm-up, not counted: the first requests load BullMQ's scripts and compile the hot paths.
    await openLoop(target, 200, 1000);
    for (const rate of RATES) {
      const label = `open loop at ${String(rate)}/s`;
      figures.set(label, await measured(label, api, redis, () => openLoop(target, rate, WEBHOOKS)));
    }
    const label = `closed loop, ${String(IN_FLIGHT)} in flight`;
    figures.set(label, await measured(label, api, redis, () => closedLoop(target, WEBHOOKS, IN_FLIGHT, 100_001)));
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}

async function main(): Promise<void> {
  console.log(`${String(WEBHOOKS)} deliveries per run, ${String(ROUNDS)} round(s), builds: ${ROOTS.join(", ")}`);
  const runs = ROOTS.map(() => [] as Map<string, Figures>[]);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [index, root] of ROOTS.entries()) {
      console.log(`round ${String(round)}, ${root}:`);
      const profileDir = PROFILE_DIR === null ? null : join(PROFILE_DIR, String(index));
      if (profileDir !== null) await mkdir(profileDir, { recursive: true });
      runs[index]?.push(await runBuild(root, profileDir));
    }
  }
  for (const [index, root] of ROOTS.entries()) {
    console.log(`medians over ${String(ROUNDS)} round(s), ${root}:`);
    const rounds = runs[index] ?? [];
    for (const label of rounds[0]?.keys() ?? []) {
      const of = (pick: (f: Figures) => number): number => median(rounds.map((figures) => pick(figures.get(label) ?? emptyFigures())));
      const figures = {
        p50: of((f) => f.p50),
        p99: of((f) => f.p99),
        perSecond: of((f) => f.perSecond),
        apiMicros: of((f) => f.apiMicros),
        redisMicros: of((f) => f.redisMicros),
      };
      console.log(`  ${label}: ${line(figures)}`);
    }
    if (PROFILE_DIR !== null) await printProfile(join(PROFILE_DIR, String(index)));
  }
}

/** The api's top-10 by self time, and by the step of ours that caused the time. */
async function printProfile(dir: string): Promise<void> {
  for (const attribution of ["self", "own"] as const) {
    console.log(`  api top-10 (${attribution === "self" ? "self time" : "time by the nearest frame of ours"}, idle left out; ${dir}):`);
    for (const entry of await topProfileEntries(dir, 10, attribution)) {
      console.log(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(6)} ms  ${entry.name}`);
    }
  }
}

function emptyFigures(): Figures {
  return { p50: Number.NaN, p99: Number.NaN, perSecond: Number.NaN, apiMicros: Number.NaN, redisMicros: Number.NaN };
}

await main();
