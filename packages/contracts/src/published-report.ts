import { z } from "zod";
import { ENGINE_NAMES } from "@reviewbot/core/engine-names";
import { AiReport } from "./ai-report.js";
import { CommitSha } from "./commit-sha.js";
import { HelperOutcome } from "./helper-outcome.js";
import { LineAnchor } from "./line-anchor.js";
import { Severity } from "./severity.js";

const line = z.number().int().positive().nullable();

/** A finding as the publisher receives it: already sanitised by the pipeline, re-checked here. */
export const PublishedFinding = z.strictObject({
  path: z.string().min(1).max(4096),
  line,
  endLine: line,
  column: line,
  severity: Severity,
  message: z.string().max(65_535),
  rule: z.string().max(1024).nullable(),
  helper: z.string().max(200),
  /** The anchor of a finding on a line of the diff's hunks (where a review comment can go); null elsewhere. */
  anchor: LineAnchor.nullable(),
});
export type PublishedFinding = z.infer<typeof PublishedFinding>;

/** One helper's outcome, without its output (the output stays on the worker and in its logs). */
export const PublishedHelper = z.strictObject({
  name: z.string().max(200),
  image: z.string().max(500),
  outcome: HelperOutcome,
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
  sha: CommitSha,
});
export type PublishedConfigCommit = z.infer<typeof PublishedConfigCommit>;

/** Why the repository's settings skipped an automatic review: a fixed word, and the label that did it. */
export const SettingsSkipped = z.discriminatedUnion("reason", [
  z.strictObject({ reason: z.enum(["automatic-review-off", "draft", "bot-author"]) }),
  z.strictObject({ reason: z.literal("label"), label: z.string().min(1).max(100) }),
]);
export type SettingsSkipped = z.infer<typeof SettingsSkipped>;

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
  ai: AiReport,
  /** The trusted settings' least severe finding to comment on inline (absent: every one); the api raises it to its operator's floor. */
  minInlineSeverity: Severity.optional(),
  /** Why the trusted settings skipped this automatic review (nothing ran); checked against the api's own job. */
  skipped: SettingsSkipped.optional(),
});
export type PublishedReport = z.infer<typeof PublishedReport>;
