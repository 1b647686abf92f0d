import { evalMetrics } from "./eval-metrics.js";
import type { EvalRun } from "./eval-run.js";

/** How a figure varied across repetitions: null when it was undefined in every one. */
export interface Spread {
  readonly min: number;
  readonly max: number;
  readonly stdev: number;
}

export interface EvalSpread {
  readonly precision: Spread | null;
  readonly recall: Spread | null;
  readonly f05: Spread | null;
}

/**
 * The figures computed per repetition (every case's n-th review together), and their minimum,
 * maximum and population standard deviation across repetitions.
 */
export function evalSpread(runs: readonly EvalRun[]): EvalSpread {
  const repetitions = [...new Set(runs.map((run) => run.repetition))].map((repetition) => evalMetrics(runs.filter((run) => run.repetition === repetition)));
  return {
    precision: spreadOf(repetitions.map((metrics) => metrics.precision)),
    recall: spreadOf(repetitions.map((metrics) => metrics.recall)),
    f05: spreadOf(repetitions.map((metrics) => metrics.f05)),
  };
}

function spreadOf(values: readonly (number | null)[]): Spread | null {
  const defined = values.filter((value): value is number => value !== null);
  if (defined.length === 0) return null;
  const mean = defined.reduce((total, value) => total + value, 0) / defined.length;
  const variance = defined.reduce((total, value) => total + (value - mean) ** 2, 0) / defined.length;
  return { min: Math.min(...defined), max: Math.max(...defined), stdev: Math.sqrt(variance) };
}
