import { z } from "zod";
import { ENGINE_NAMES } from "@reviewbot/core/engine-names";

const line = z.number().int().positive().nullable();
/**
 * 16 hex digits of the SHA-256 of a finding's anchor line (whitespace runs collapsed, ends
 * trimmed): what the publisher fingerprints a finding by, so a comment follows its line's text
 * across pushes, not its number.
 */
const anchor = z.string().regex(/^[0-9a-f]{16}$/, "must be 16 lowercase hex digits");
const sha = z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-character lowercase hex SHA");

/** A finding as the publisher receives it: already sanitised by the pipeline, re-checked here. */
export const PublishedFinding = z.strictObject({
  path: z.string().min(1).max(4096),
  line,
  endLine: line,
  column: line,
  severity: z.enum(["error", "warning", "notice"]),
  message: z.string().max(65_535),
  rule: z.string().max(1024).nullable(),
  helper: z.string().max(200),
  /** The anchor of a finding on a line of the diff's hunks (where a review comment can go); null elsewhere. */
  anchor: anchor.nullable(),
});
export type PublishedFinding = z.infer<typeof PublishedFinding>;

/** One helper's outcome, without its output (the output stays on the worker and in its logs). */
export const PublishedHelper = z.strictObject({
  name: z.string().max(200),
  image: z.string().max(500),
  outcome: z.enum(["passed", "findings", "failed", "timeout", "oom", "truncated", "cancelled"]),
  durationMs: z.number().int().nonnegative(),
  findings: z.number().int().nonnegative(),
  problems: z.array(z.string().max(2000)).max(100),
});
export type PublishedHelper = z.infer<typeof PublishedHelper>;

const range = z.strictObject({ start: z.number().int().positive(), end: z.number().int().positive() });

/** The commit the trusted `.ai/` was read from: the head of a ref (the default branch), or the base. */
export const PublishedConfigCommit = z.strictObject({
  from: z.enum(["ref", "base"]),
  // A ref name only: the publisher shows it in a code span, so it must not carry Markdown or a backtick.
  ref: z.string().regex(/^[A-Za-z0-9._/-]{1,255}$/, "must be a plain ref name"),
  sha: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "must be a full lowercase hex SHA"),
});
export type PublishedConfigCommit = z.infer<typeof PublishedConfigCommit>;

/** The AI review's categories: the closed set `submit_review` offers the model. */
export const AI_CATEGORIES = ["bug", "security", "performance", "correctness", "maintainability", "style", "docs", "tests"] as const;

/** A model-written finding the worker placed on a diff line (path in the diff, line in one hunk, anchor text matched). */
export const PublishedAiFinding = z.strictObject({
  path: z.string().min(1).max(4096),
  side: z.enum(["RIGHT", "LEFT"]),
  startLine: z.number().int().positive().nullable(),
  line: z.number().int().positive(),
  severity: z.enum(["error", "warning", "notice"]),
  category: z.enum(AI_CATEGORIES),
  title: z.string().max(200),
  body: z.string().max(4000),
  suggestion: z.string().max(4000).nullable(),
  anchor,
});
export type PublishedAiFinding = z.infer<typeof PublishedAiFinding>;

/**
 * The AI review: `off` (no model configured), `done`, `partial` (a budget ended it early or some
 * chunks gave no review: `coverage` says what was reviewed) or `failed` (`note` says why). Never
 * raw model text: the summary and findings are validated fields of the model's `submit_review`.
 */
export const PublishedAi = z.strictObject({
  status: z.enum(["off", "done", "partial", "failed"]),
  model: z.string().max(200).nullable(),
  /**
   * The head of the last review when this one looked only at what changed since it (the earlier
   * findings still on their lines are carried into `findings`); null for a review of the whole PR.
   */
  since: sha.nullable(),
  summary: z.string().max(8000),
  findings: z.array(PublishedAiFinding).max(500),
  unplaced: z
    .array(z.strictObject({ path: z.string().max(4096), line: z.number().int().nonnegative(), title: z.string().max(200), reason: z.string().max(500) }))
    .max(500),
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
export type PublishedAi = z.infer<typeof PublishedAi>;

/**
 * What a worker hands the publisher: everything a check run and review comments need, nothing
 * secret. `hunks` are the head-side hunk extents of each file with findings, so review comments
 * can be validated against the diff without another API call.
 */
export const PublishedReport = z.strictObject({
  engine: z.enum(ENGINE_NAMES),
  sandboxed: z.boolean(),
  overlay: z
    .strictObject({
      source: z.enum(["ref", "base", "absent", "failed-closed"]),
      failedClosed: z.boolean(),
      commit: PublishedConfigCommit.nullable(),
      ignoredPrChanges: z.array(z.string().max(4096)).max(1000),
    })
    // Only an overlay that failed before it had a commit may leave the commit unnamed.
    .refine((overlay) => overlay.commit !== null || overlay.source === "failed-closed", {
      path: ["commit"],
      message: "must name the commit .ai/ was read from",
    }),
  configErrors: z.array(z.string().max(2000)).max(200),
  helpers: z.array(PublishedHelper).max(100),
  findings: z.array(PublishedFinding).max(20_000),
  filtered: z.strictObject({ mode: z.enum(["added", "diff_context", "file", "nofilter"]), dropped: z.number().int().nonnegative() }),
  errors: z.array(z.string().max(2000)).max(200),
  hunks: z.record(z.string(), z.array(range).max(10_000)),
  durationMs: z.number().int().nonnegative(),
  ai: PublishedAi,
});
export type PublishedReport = z.infer<typeof PublishedReport>;

/** The AI review of a report when no model is configured (or the reviewer has none to offer). */
export const AI_REVIEW_OFF: PublishedAi = Object.freeze({
  status: "off",
  model: null,
  since: null,
  summary: "",
  findings: [],
  unplaced: [],
  usage: { inputTokens: 0, outputTokens: 0, turns: 0, toolCalls: 0 },
  coverage: { files: 0, reviewedFiles: 0, skipped: [] },
  note: null,
});
