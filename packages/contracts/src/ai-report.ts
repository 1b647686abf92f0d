import { z } from "zod";
import { AiCategory } from "./ai-category.js";
import { CommitSha } from "./commit-sha.js";
import { LineAnchor } from "./line-anchor.js";
import { Severity } from "./severity.js";

/** A model-written finding placed on a line of the diff (path in the diff, line in one hunk, anchor text matched). */
export const PlacedAiFinding = z.strictObject({
  path: z.string().min(1).max(4096),
  side: z.enum(["RIGHT", "LEFT"]),
  startLine: z.number().int().positive().nullable(),
  line: z.number().int().positive(),
  severity: Severity,
  category: AiCategory,
  title: z.string().max(200),
  body: z.string().max(4000),
  suggestion: z.string().max(4000).nullable(),
  /** The anchor of its line: the text the model quoted, which placement matched. */
  anchor: LineAnchor,
});
export type PlacedAiFinding = z.infer<typeof PlacedAiFinding>;

/** A finding the model made that could not be placed, and why (listed in the summary, never posted inline). */
export const UnplacedAiFinding = z.strictObject({
  path: z.string().max(4096),
  line: z.number().int().nonnegative(),
  title: z.string().max(200),
  reason: z.string().max(500),
});
export type UnplacedAiFinding = z.infer<typeof UnplacedAiFinding>;

export const AiStatus = z.enum(["off", "done", "partial", "failed"]);
export type AiStatus = z.infer<typeof AiStatus>;

/**
 * The AI review: `off` (no model configured), `done`, `partial` (a budget ended it early or some
 * chunks gave no review: `coverage` says what was reviewed) or `failed` (`note` says why). Never
 * raw model text: the summary and findings are validated fields of the model's `submit_review`.
 */
export const AiReport = z.strictObject({
  status: AiStatus,
  model: z.string().max(200).nullable(),
  /**
   * The head of the last review when this one looked only at what changed since it (the earlier
   * findings still on their lines are carried into `findings`); null for a review of the whole PR.
   */
  since: CommitSha.nullable(),
  summary: z.string().max(8000),
  /** What the PR does, model-written (`submit_review`'s `description`); absent when the model gave none. */
  description: z.string().max(2000).optional(),
  /** Per file the model was shown, what changed in it, model-written (`submit_review`'s `walkthrough`). */
  walkthrough: z
    .array(z.strictObject({ path: z.string().min(1).max(4096), change: z.string().min(1).max(300) }))
    .max(1000)
    .optional(),
  findings: z.array(PlacedAiFinding).max(500),
  unplaced: z.array(UnplacedAiFinding).max(500),
  usage: z.strictObject({
    inputTokens: z.int().nonnegative(),
    outputTokens: z.int().nonnegative(),
    turns: z.int().nonnegative(),
    toolCalls: z.int().nonnegative(),
  }),
  coverage: z.strictObject({
    files: z.int().nonnegative(),
    reviewedFiles: z.int().nonnegative(),
    skipped: z.array(z.strictObject({ path: z.string().max(4096), reason: z.string().max(200) })).max(1000),
  }),
  note: z.string().max(2000).nullable(),
});
export type AiReport = z.infer<typeof AiReport>;

/** The AI review of a report that ran no model (none configured, or the reviewer has none to offer); `note` says why when it is not plain "off". */
export function aiReportOff(note: string | null = null): AiReport {
  return {
    status: "off",
    model: null,
    since: null,
    summary: "",
    findings: [],
    unplaced: [],
    usage: { inputTokens: 0, outputTokens: 0, turns: 0, toolCalls: 0 },
    coverage: { files: 0, reviewedFiles: 0, skipped: [] },
    note,
  };
}
