import { describe, expect, it } from "vitest";
import { evalMetrics, nearestRank } from "./eval-metrics.js";
import type { EvalRun } from "./eval-run.js";
import { evalSpread } from "./eval-spread.js";

const run = (more: Partial<EvalRun>): EvalRun => ({
  caseId: "c",
  kind: "bug",
  repetition: 0,
  findings: 0,
  placed: 0,
  matched: 0,
  known: 0,
  inputTokens: 0,
  outputTokens: 0,
  costMicrodollars: 0,
  wallMs: 0,
  status: "done",
  judgements: [],
  ...more,
});

describe("evalMetrics", () => {
  it("pools the reviews: precision and recall over the sums, F0.5 weighting precision", () => {
    const metrics = evalMetrics([
      run({ findings: 4, placed: 3, matched: 2, known: 2, inputTokens: 900, outputTokens: 100, costMicrodollars: 3000, wallMs: 10 }),
      run({ findings: 0, matched: 0, known: 2, wallMs: 30 }),
      run({ kind: "clean", findings: 1, placed: 1, wallMs: 20 }),
      run({ kind: "clean", wallMs: 40 }),
    ]);
    // precision 2/5, recall 2/4; F0.5 = 1.25·0.4·0.5 / (0.25·0.4 + 0.5) = 0.25 / 0.6
    expect(metrics).toEqual({
      precision: 0.4,
      recall: 0.5,
      f05: 0.25 / 0.6,
      falsePositiveRate: 0.5,
      commentsPerPr: 1,
      anchorValidity: 0.8,
      tokensPerPr: 250,
      costPerPr: 0.00075,
      p50Ms: 20,
      p95Ms: 40,
    });
  });

  it("says null where a figure is undefined, and F0.5 is 0 when precision and recall are both 0", () => {
    expect(evalMetrics([])).toEqual({
      precision: null,
      recall: null,
      f05: null,
      falsePositiveRate: null,
      commentsPerPr: null,
      anchorValidity: null,
      tokensPerPr: null,
      costPerPr: null,
      p50Ms: null,
      p95Ms: null,
    });
    expect(evalMetrics([run({ findings: 2, known: 1 })])).toMatchObject({ precision: 0, recall: 0, f05: 0, falsePositiveRate: null });
  });

  it.each([
    [[5], 0.5, 5],
    [[1, 2], 0.5, 1],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5, 5],
  ])("nearest rank of %j at %d is %d", (values, share, expected) => {
    expect(nearestRank(values, share)).toBe(expected);
  });
});

describe("evalSpread", () => {
  it("gives each figure's min, max and population standard deviation across repetitions", () => {
    const spread = evalSpread([run({ repetition: 0, findings: 1, matched: 1, known: 2 }), run({ repetition: 1, findings: 1, matched: 0, known: 2 })]);
    expect(spread.recall).toEqual({ min: 0, max: 0.5, stdev: 0.25 });
    expect(spread.precision).toEqual({ min: 0, max: 1, stdev: 0.5 });
  });
});
