/**
 * The parse process's figures for bench:parsers: what starting one costs over reading
 * in place, the event loop's worst delay while hostile output is read in it under a deadline and
 * while the same output is read in place, and hostile parses run into the heap ceiling several at
 * a time (each must end as a report; an abort that took the caller would end this script).
 * Prints, asserts nothing.
 */
import { extractFindings, type ExtractRequest } from "@reviewbot/review/findings/extract-findings";
import { IN_PLACE_BYTES, parseUnderBudget } from "@reviewbot/review/findings/parse-under-budget";
import { withEventLoopLag } from "@reviewbot/core/testing/event-loop-lag";
import { PARSER_INPUTS } from "./parser-inputs.js";
import { median } from "./median.js";

const MiB = 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REQUEST: Omit<ExtractRequest, "output"> = {
  format: "sarif",
  helper: "bench",
  mountPoint: "/work",
  cwd: ".",
  secrets: ["secret-value-123"],
  maxFindings: 5_000,
};
const BUDGET = { timeoutMs: 10_000, memoryBytes: 128 * MiB };
const CEILING_AT_ONCE = 4;
const CEILING_ROUNDS = 5;
// 8 MB of `[],`: 2.8 million arrays for JSON.parse (see test/review/findings-budget.test.ts).
const HOSTILE = `{"runs":[{"results":[${"[],".repeat(2_800_000)}[]]}]}`;

async function medianMs(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** The worst delay of a 10 ms timer while `action` runs, with 30 ms of idle loop before and after. */
async function worstLagMs(action: () => Promise<unknown>): Promise<number> {
  const idle = () => new Promise((resolve) => setTimeout(resolve, 30));
  const { maxLagMs } = await withEventLoopLag(async () => {
    await idle();
    await action();
    await idle();
  }, 10);
  return maxLagMs;
}

/** How hostile parses at a 64 MiB heap ended, `CEILING_ROUNDS` rounds of `CEILING_AT_ONCE` at a time. */
async function ceilingOutcomes(): Promise<Map<string, number>> {
  const outcomes = new Map<string, number>();
  for (let round = 0; round < CEILING_ROUNDS; round += 1) {
    const results = await Promise.all(
      Array.from({ length: CEILING_AT_ONCE }, () => parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 60_000, memoryBytes: 64 * MiB })),
    );
    for (const result of results) {
      const outcome = result.ok ? "read" : result.reason;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  }
  return outcomes;
}

export async function parseProcessFigures(): Promise<void> {
  const output = PARSER_INPUTS.sarif?.benign(IN_PLACE_BYTES + 1) ?? "";
  const inPlace = await medianMs(() => Promise.resolve(extractFindings({ ...REQUEST, output })));
  const inProcess = await medianMs(() => parseUnderBudget({ ...REQUEST, output }, BUDGET));
  console.log(`parse process: ${String(IN_PLACE_BYTES + 1)} bytes of benign sarif (the smallest output given a process), median of ${String(RUNS)}`);
  console.log(`  read in place ${inPlace.toFixed(1)} ms, in a process ${inProcess.toFixed(1)} ms: starting one costs ${(inProcess - inPlace).toFixed(1)} ms`);
  const offLoop = await worstLagMs(() => parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 1_000, memoryBytes: 1024 * MiB }));
  const onLoop = await worstLagMs(() => Promise.resolve(extractFindings({ ...REQUEST, output: HOSTILE })));
  console.log(
    `  event loop's worst delay over 8 MB of hostile sarif: ${offLoop.toFixed(0)} ms in a process stopped at 1 s, ${onLoop.toFixed(0)} ms read in place`,
  );
  console.log(`  8 MB of hostile sarif at a 64 MiB heap, ${String(CEILING_AT_ONCE)} at a time, ${String(CEILING_ROUNDS)} rounds:`);
  for (const [outcome, count] of await ceilingOutcomes()) console.log(`    ${String(count)} × ${outcome}`);
}
