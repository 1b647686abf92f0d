import { z } from "zod";
import { JudgeVerdict } from "./judge-answer.js";

/** One window candidate (finding index × known index) the judge model was asked about. */
export const EvalJudgement = z.strictObject({
  finding: z.int().nonnegative(),
  known: z.int().nonnegative(),
  promptHash: z.string().regex(/^[0-9a-f]{64}$/),
  verdict: JudgeVerdict,
  /** The judge's raw answer (or the error of a failed call), cut to 500 characters. */
  answer: z.string().max(500),
});
export type EvalJudgement = z.infer<typeof EvalJudgement>;

/**
 * One review of one case scored: what the cache keeps per (case, repetition, configuration).
 * `findings` counts the model's findings placed and unplaced; `placed` those on a valid anchor;
 * the tokens and cost include the judge's.
 */
export const EvalRun = z.strictObject({
  caseId: z.string().max(100),
  kind: z.enum(["bug", "clean"]),
  repetition: z.int().nonnegative(),
  findings: z.int().nonnegative(),
  placed: z.int().nonnegative(),
  matched: z.int().nonnegative(),
  known: z.int().nonnegative(),
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  costMicrodollars: z.int().nonnegative(),
  wallMs: z.number().nonnegative(),
  /** The AI review's status: a `failed` review is scored (it found nothing) but never cached. */
  status: z.enum(["off", "done", "partial", "failed"]),
  /** The judge's verdicts on this review's window candidates (none without a judge model). */
  judgements: z.array(EvalJudgement).max(10_000).default([]),
});
export type EvalRun = z.infer<typeof EvalRun>;
