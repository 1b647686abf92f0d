import type { EvalResult } from "./eval-result.js";

/** How far a figure may move the wrong way before `--compare` fails. */
export interface CompareThresholds {
  /** Absolute drop in recall (0.05 = five points). */
  readonly maxRecallDrop: number;
  readonly maxPrecisionDrop: number;
  /** Absolute rise in the clean cases' false-positive rate. */
  readonly maxFalsePositiveRise: number;
  /** Relative rise in cost per PR (0.25 = 25 % dearer). */
  readonly maxCostRise: number;
}

export const DEFAULT_THRESHOLDS: CompareThresholds = { maxRecallDrop: 0.05, maxPrecisionDrop: 0.05, maxFalsePositiveRise: 0.1, maxCostRise: 0.25 };

export interface Difference {
  readonly figure: keyof EvalResult["overall"];
  readonly before: number | null;
  readonly after: number | null;
  /** Why it fails the gate, or null. */
  readonly failure: string | null;
}

const FIGURES = ["precision", "recall", "f05", "falsePositiveRate", "commentsPerPr", "anchorValidity", "tokensPerPr", "costPerPr", "p50Ms", "p95Ms"] as const;

/**
 * Every overall figure before and after; a gated figure that moved past its threshold carries the
 * failure. A gated figure that became undefined (null) while it was defined before fails too: a
 * gate must not pass because there was nothing to measure.
 */
export function compareResults(before: EvalResult, after: EvalResult, thresholds: CompareThresholds): Difference[] {
  return FIGURES.map((figure) => {
    const was = before.overall[figure];
    const now = after.overall[figure];
    return { figure, before: was, after: now, failure: failureOf(figure, was, now, thresholds) };
  });
}

function failureOf(figure: (typeof FIGURES)[number], was: number | null, now: number | null, thresholds: CompareThresholds): string | null {
  const gate =
    figure === "recall"
      ? { limit: thresholds.maxRecallDrop, moved: (a: number, b: number) => a - b, says: "dropped" }
      : figure === "precision"
        ? { limit: thresholds.maxPrecisionDrop, moved: (a: number, b: number) => a - b, says: "dropped" }
        : figure === "falsePositiveRate"
          ? { limit: thresholds.maxFalsePositiveRise, moved: (a: number, b: number) => b - a, says: "rose" }
          : figure === "costPerPr"
            ? { limit: thresholds.maxCostRise, moved: (a: number, b: number) => (a === 0 ? (b > 0 ? Infinity : 0) : (b - a) / a), says: "rose" }
            : null;
  if (gate === null || was === null) return null;
  if (now === null) return `${figure} is no longer defined`;
  const moved = gate.moved(was, now);
  return moved > gate.limit + 1e-9 ? `${figure} ${gate.says} by ${moved.toFixed(3)} (threshold ${gate.limit})` : null;
}
