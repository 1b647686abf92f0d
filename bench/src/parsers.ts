/**
 * Findings parsers benchmark. For each output format, and for the output sanitiser,
 * the throughput of the pipeline's steps (parse, map each path, sanitise each finding) on benign
 * output and on hostile output of the same size, and the ratio of their times (target ≤ 2); then
 * the peak heap of reading 1 MiB of ESLint output whose messages share one long path (target
 * < 64 MB), measured in a fresh process held to a 64 MB old space; then what the parse process
 * costs to start, how long the event loop waits while it reads hostile output, and how hostile
 * parses at the heap ceiling end, several at once. Not a test: it asserts nothing, it prints
 * figures.
 *
 *   pnpm --filter @reviewbot/bench bench:parsers      (BENCH_PARSER_MB=8 BENCH_RUNS=9 for more)
 */
import { spawnSync } from "node:child_process";
import { getHeapStatistics } from "node:v8";
import { fileURLToPath } from "node:url";
import type { Finding } from "@reviewbot/review/findings/finding";
import { mapFindingPath } from "@reviewbot/review/findings/map-path";
import { parseFindings } from "@reviewbot/review/findings/parse-findings";
import { sanitiseFinding, sanitiseText } from "@reviewbot/review/findings/sanitise-output";
import type { OutputFormat } from "@reviewbot/policy/helper-spec";
import { PARSER_INPUTS, sharedPathEslint } from "./parser-inputs.js";
import { parseProcessFigures } from "./parse-process-figures.js";
import { median } from "./median.js";

const SIZE = Math.round(Number(process.env.BENCH_PARSER_MB ?? 2) * 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECRETS = ["secret-value-123", "another-secret-456"];
const MAPPING = { mountPoint: "/work", cwd: "." };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** What `runHelper` does with one helper's stdout: parse, map each path, sanitise what is kept. */
function readOutput(format: OutputFormat, output: string): Finding[] {
  const kept: Finding[] = [];
  for (const finding of parseFindings(format, output, { helper: "bench" }).findings) {
    const mapped = mapFindingPath(finding.path, MAPPING);
    if (mapped.path !== null) kept.push(sanitiseFinding({ ...finding, path: mapped.path }, { secrets: SECRETS }));
  }
  return kept;
}

function runner(name: string): (input: string) => number {
  if (name === "sanitise")
    return (input) => sanitiseText(input, { maxBytes: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY, secrets: SECRETS }).text.length;
  return (input) => readOutput(name as OutputFormat, input).length;
}

function medianMs(run: (input: string) => number, input: string): { ms: number; findings: number } {
  const findings = run(input); // warm-up
  run(input);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    gc();
    const start = performance.now();
    run(input);
    times.push(performance.now() - start);
  }
  return { ms: median(times), findings };
}

function throughput(): void {
  console.log(`parsers: parse + map + sanitise, ${(SIZE / 1e6).toFixed(1)} MB of output each, median of ${String(RUNS)} (after 2 warm-ups)`);
  console.log(`  ${"format".padEnd(12)} ${"benign".padStart(12)} ${"hostile".padStart(12)}  hostile/benign time (target ≤ 2)   findings benign/hostile`);
  for (const [name, inputs] of Object.entries(PARSER_INPUTS)) {
    const benign = inputs.benign(SIZE);
    const hostile = inputs.hostile(SIZE);
    const b = medianMs(runner(name), benign);
    const h = medianMs(runner(name), hostile);
    // Rates per byte of each input, and the time ratio scaled to equal sizes (the two differ by a line or two).
    const rate = (bytes: number, ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(1).padStart(7)} MB/s`;
    const ratio = h.ms / hostile.length / (b.ms / benign.length);
    const findings = name === "sanitise" ? "-" : `${String(b.findings)}/${String(h.findings)}`;
    console.log(
      `  ${name.padEnd(12)} ${rate(benign.length, b.ms)} ${rate(hostile.length, h.ms)}  ${ratio.toFixed(2).padStart(6)}${ratio <= 2 ? "" : "  (over target)"}`.padEnd(
        72,
      ) + findings,
    );
  }
}

/** Run in a child: read 1 MiB of shared-path ESLint output, print heap figures as JSON. */
function heapChild(): void {
  const output = sharedPathEslint();
  gc();
  const base = process.memoryUsage().heapUsed;
  const checkpoints: number[] = [];
  const parsed = parseFindings("eslint-json", output, { helper: "bench" }).findings;
  checkpoints.push(process.memoryUsage().heapUsed - base);
  const mapped = parsed.map((finding) => ({ ...finding, path: mapFindingPath(finding.path, MAPPING).path ?? "" }));
  checkpoints.push(process.memoryUsage().heapUsed - base);
  const kept = mapped.map((finding) => sanitiseFinding(finding, { secrets: SECRETS }));
  checkpoints.push(process.memoryUsage().heapUsed - base);
  const heap = getHeapStatistics();
  console.log(
    JSON.stringify({
      bytes: output.length,
      findings: kept.length,
      peakUsedGrowth: Math.max(...checkpoints),
      totalHeap: heap.total_heap_size,
      maxRssKiB: process.resourceUsage().maxRSS,
    }),
  );
}

function heap(): void {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ["--expose-gc", "--max-old-space-size=64", script, "heap"], { encoding: "utf8" });
  console.log("heap: 1 MiB of ESLint output, every message on one 4,012-character filePath (issue 11: 1.6 GB)");
  if (child.status !== 0) {
    console.log(`  the reading process failed within a 64 MB old space (status ${String(child.status)}): ${child.stderr.trim().split("\n").at(-1) ?? ""}`);
    return;
  }
  const figures = JSON.parse(child.stdout) as { bytes: number; findings: number; peakUsedGrowth: number; totalHeap: number; maxRssKiB: number };
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  console.log(`  ${String(figures.findings)} findings from ${mb(figures.bytes)} of output, read within --max-old-space-size=64`);
  console.log(`  heap used, highest checkpoint over the baseline  ${mb(figures.peakUsedGrowth)}  (target < 64 MB)`);
  console.log(`  heap committed after the read                    ${mb(figures.totalHeap)}`);
  console.log(`  peak RSS of the process                          ${mb(figures.maxRssKiB * 1024)}`);
}

if (process.argv[2] === "heap") {
  heapChild();
} else {
  throughput();
  heap();
  await parseProcessFigures();
}
