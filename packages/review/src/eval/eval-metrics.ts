import type { EvalRun } from "./eval-run.js";

/** The figures of a set of reviews; `null` where a figure is undefined (a ratio over nothing). */
export interface EvalMetrics {
  readonly precision: number | null;
  readonly recall: number | null;
  readonly f05: number | null;
  readonly falsePositiveRate: number | null;
  readonly commentsPerPr: number | null;
  readonly anchorValidity: number | null;
  readonly tokensPerPr: number | null;
  readonly costPerPr: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);
const sum = (runs: readonly EvalRun[], field: (run: EvalRun) => number): number => runs.reduce((total, run) => total + field(run), 0);

/**
 * Pooled over the reviews (micro-averaged): precision = matched ÷ findings, recall = matched ÷
 * known, F0.5 = 1.25·P·R ÷ (0.25·P + R) (precision weighted; 0 when both are 0); the false-positive
 * rate = the share of clean-case reviews with at least one finding; comments per PR = placed
 * findings per review; anchor validity = placed ÷ findings; tokens (input + output) and cost (USD)
 * per review; wall time p50 and p95 by nearest rank.
 */
export function evalMetrics(runs: readonly EvalRun[]): EvalMetrics {
  const findings = sum(runs, (run) => run.findings);
  const matched = sum(runs, (run) => run.matched);
  const precision = ratio(matched, findings);
  const recall = ratio(
    matched,
    sum(runs, (run) => run.known),
  );
  const clean = runs.filter((run) => run.kind === "clean");
  const walls = runs.map((run) => run.wallMs).sort((a, b) => a - b);
  return {
    precision,
    recall,
    f05: fHalf(precision, recall),
    falsePositiveRate: ratio(clean.filter((run) => run.findings > 0).length, clean.length),
    commentsPerPr: ratio(
      sum(runs, (run) => run.placed),
      runs.length,
    ),
    anchorValidity: ratio(
      sum(runs, (run) => run.placed),
      findings,
    ),
    tokensPerPr: ratio(
      sum(runs, (run) => run.inputTokens + run.outputTokens),
      runs.length,
    ),
    costPerPr: ratio(sum(runs, (run) => run.costMicrodollars) / 1_000_000, runs.length),
    p50Ms: nearestRank(walls, 0.5),
    p95Ms: nearestRank(walls, 0.95),
  };
}

function fHalf(precision: number | null, recall: number | null): number | null {
  if (precision === null || recall === null) return null;
  const denominator = 0.25 * precision + recall;
  return denominator === 0 ? 0 : (1.25 * precision * recall) / denominator;
}

/** The smallest value with at least `share` of the values at or below it; null for none. */
export function nearestRank(sorted: readonly number[], share: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)] ?? null;
}
