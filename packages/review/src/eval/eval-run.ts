import { z } from "zod";

/**
 * One review of one case scored: what the cache keeps per (case, repetition, configuration).
 * `findings` counts the model's findings placed and unplaced; `placed` those on a valid anchor.
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
});
export type EvalRun = z.infer<typeof EvalRun>;
