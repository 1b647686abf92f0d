import { z } from "zod";
import { evalMetrics } from "./eval-metrics.js";
import { EvalJudgement, type EvalRun } from "./eval-run.js";
import { evalSpread } from "./eval-spread.js";

const Figure = z.number().nullable();
const SpreadSchema = z.strictObject({ min: z.number(), max: z.number(), stdev: z.number() }).nullable();

export const EvalMetricsSchema = z.strictObject({
  precision: Figure,
  recall: Figure,
  f05: Figure,
  falsePositiveRate: Figure,
  commentsPerPr: Figure,
  anchorValidity: Figure,
  tokensPerPr: Figure,
  costPerPr: Figure,
  p50Ms: Figure,
  p95Ms: Figure,
});

/**
 * `reviewbot eval --format json`, and what `--compare` reads back. Per case, `findings` and
 * `matched` are means per repetition, `known` the case's own count.
 */
export const EvalResult = z.strictObject({
  suite: z.string().max(200),
  model: z.string().max(200),
  configHash: z.string().max(100),
  window: z.int().nonnegative(),
  repeat: z.int().positive(),
  cases: z
    .array(
      z.strictObject({
        id: z.string().max(100),
        kind: z.enum(["bug", "clean"]),
        ...EvalMetricsSchema.shape,
        findings: z.number().nonnegative(),
        matched: z.number().nonnegative(),
        known: z.int().nonnegative(),
        failed: z.int().nonnegative(),
        spread: z.strictObject({ precision: SpreadSchema, recall: SpreadSchema, f05: SpreadSchema }),
        /** The judge's verdicts, per repetition (empty without a judge model). */
        judgements: z
          .array(EvalJudgement.extend({ repetition: z.int().nonnegative() }))
          .max(100_000)
          .default([]),
      }),
    )
    .max(10_000),
  overall: EvalMetricsSchema,
  spread: z.strictObject({ precision: SpreadSchema, recall: SpreadSchema, f05: SpreadSchema }),
});
export type EvalResult = z.infer<typeof EvalResult>;

/** The result of a suite's runs: per case (in the suite's order) and overall, with the spread across repetitions. */
export function buildEvalResult(
  runs: readonly EvalRun[],
  about: { readonly suite: string; readonly model: string; readonly configHash: string; readonly window: number; readonly repeat: number },
): EvalResult {
  const ids = [...new Set(runs.map((run) => run.caseId))];
  const cases = ids.map((id) => {
    const mine = runs.filter((run) => run.caseId === id);
    const mean = (field: (run: EvalRun) => number): number => mine.reduce((total, run) => total + field(run), 0) / mine.length;
    return {
      id,
      kind: mine[0]?.kind ?? "bug",
      ...evalMetrics(mine),
      findings: mean((run) => run.findings),
      matched: mean((run) => run.matched),
      known: mine[0]?.known ?? 0,
      failed: mine.filter((run) => run.status === "failed").length,
      spread: evalSpread(mine),
      judgements: mine.flatMap((run) => run.judgements.map((judgement) => ({ repetition: run.repetition, ...judgement }))),
    };
  });
  return { ...about, cases, overall: evalMetrics(runs), spread: evalSpread(runs) };
}
