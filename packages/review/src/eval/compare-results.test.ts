import { describe, expect, it } from "vitest";
import { compareResults, DEFAULT_THRESHOLDS } from "./compare-results.js";
import type { EvalResult } from "./eval-result.js";

const result = (overall: Partial<EvalResult["overall"]>): EvalResult => ({
  suite: "s",
  model: "m",
  configHash: "h",
  window: 3,
  repeat: 1,
  cases: [],
  spread: { precision: null, recall: null, f05: null },
  overall: {
    precision: 0.5,
    recall: 0.5,
    f05: 0.5,
    falsePositiveRate: 0.2,
    commentsPerPr: 1,
    anchorValidity: 1,
    tokensPerPr: 1000,
    costPerPr: 0.01,
    p50Ms: 1,
    p95Ms: 2,
    ...overall,
  },
});
const failures = (before: EvalResult, after: EvalResult): (string | null)[] =>
  compareResults(before, after, DEFAULT_THRESHOLDS).flatMap((difference) => (difference.failure === null ? [] : [difference.failure]));

describe("compareResults", () => {
  it("passes the same result, and moves within the thresholds", () => {
    expect(failures(result({}), result({}))).toEqual([]);
    expect(failures(result({}), result({ recall: 0.45, precision: 0.45, falsePositiveRate: 0.3, costPerPr: 0.0125 }))).toEqual([]);
  });

  it.each([
    [{ recall: 0.44 }, "recall dropped by 0.060 (threshold 0.05)"],
    [{ precision: 0.3 }, "precision dropped by 0.200 (threshold 0.05)"],
    [{ falsePositiveRate: 0.5 }, "falsePositiveRate rose by 0.300 (threshold 0.1)"],
    [{ costPerPr: 0.02 }, "costPerPr rose by 1.000 (threshold 0.25)"],
    [{ recall: null }, "recall is no longer defined"],
  ])("fails %j", (after, failure) => {
    expect(failures(result({}), result(after))).toEqual([failure]);
  });

  it("never gates on figures that were undefined before, nor on ungated ones", () => {
    expect(failures(result({ precision: null }), result({ precision: 0, p95Ms: 1e9, tokensPerPr: 1e9 }))).toEqual([]);
  });

  it("counts any cost after a free run as a rise past the threshold", () => {
    expect(failures(result({ costPerPr: 0 }), result({ costPerPr: 0.001 }))).toEqual(["costPerPr rose by Infinity (threshold 0.25)"]);
  });
});
