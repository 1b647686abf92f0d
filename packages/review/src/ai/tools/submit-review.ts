import { z } from "zod";
import { AiCategory } from "@reviewbot/contracts/ai-category";
import type { ToolSpec } from "@reviewbot/contracts/chat";
import { Severity } from "@reviewbot/contracts/severity";
import { submitTool, type SubmitTool } from "./submit-tool.js";

export const MAX_SUMMARY_CHARS = 4000;
export const MAX_AI_FINDINGS = 50;
/** Bounds of the summary comment's model-written part (docs/ai-review.md, "The summary comment"). */
export const MAX_DESCRIPTION_CHARS = 1500;
export const MAX_CHANGE_CHARS = 300;
export const MAX_WALKTHROUGH_FILES = 100;
/** The longest `submit_review` arguments read: JSON.parse holds all of them in memory at once. */
export const MAX_SUBMIT_REVIEW_CHARS = 200_000;

const lineNumber = z.int().min(1).max(10_000_000);

/** One comment the model wants on the PR's diff; placed only after `placeFindings` checks it. */
export const AiFinding = z
  .strictObject({
    path: z.string().min(1).max(1000).describe("The file's path in the PR as the diff names it (the new path of a renamed file)."),
    side: z.enum(["RIGHT", "LEFT"]).describe("RIGHT: a line of the PR's version; LEFT: a line of the base version (a removed line)."),
    startLine: lineNumber.optional().describe("First line of a multi-line comment; omit for one line."),
    line: lineNumber.describe("The line the comment is on (the last line of a range); must lie in a hunk of the diff on that side."),
    severity: Severity,
    category: AiCategory,
    title: z.string().min(1).max(200),
    body: z.string().min(1).max(4000).describe("Markdown: what is wrong and why."),
    anchorText: z
      .string()
      .max(500)
      .describe("The exact text of the file at `line` on that side, without a diff marker: the comment is dropped if it does not match."),
    suggestion: z.string().max(4000).optional().describe("RIGHT side only: the text replacing lines startLine..line (or line alone), without diff markers."),
  })
  .refine((finding) => finding.startLine === undefined || finding.startLine <= finding.line, {
    message: "startLine must not be after line",
    path: ["startLine"],
  });
export type AiFinding = z.infer<typeof AiFinding>;

/** One row of the summary comment's walkthrough: a file of the chunk and what changed in it. */
export const WalkthroughEntry = z.strictObject({
  path: z.string().min(1).max(1000).describe("A file of the diff you were shown, as the diff names it."),
  change: z.string().min(1).max(MAX_CHANGE_CHARS).describe("One plain sentence: what changed in this file."),
});
export type WalkthroughEntry = z.infer<typeof WalkthroughEntry>;

/** The arguments of the `submit_review` tool: the model's whole review of one chunk. */
export const SubmitReview = z.strictObject({
  summary: z.string().max(MAX_SUMMARY_CHARS).describe("A short Markdown overview of the change and the review."),
  description: z
    .string()
    .max(MAX_DESCRIPTION_CHARS)
    .optional()
    .describe("What the pull request does, for its readers: two to four plain sentences, no Markdown, no links."),
  walkthrough: z.array(WalkthroughEntry).max(MAX_WALKTHROUGH_FILES).optional().describe("Per changed file you were shown, one sentence on what changed."),
  findings: z.array(AiFinding).max(MAX_AI_FINDINGS),
});
export type SubmitReview = z.infer<typeof SubmitReview>;

/** The tool the model ends its review with (see `submitTool` for how its arguments are read). */
export const SUBMIT_REVIEW: SubmitTool<SubmitReview> = submitTool(
  "submit_review",
  "Submit your review: a summary and the findings, each anchored to a line of the diff. Call it once, at the end.",
  SubmitReview,
  MAX_SUBMIT_REVIEW_CHARS,
);
export const SUBMIT_REVIEW_TOOL: ToolSpec = SUBMIT_REVIEW.spec;

/** The arguments as {@link SubmitReview}, or the problems to tell the model so it can call again. */
export type ParsedSubmitReview = { readonly ok: true; readonly review: SubmitReview } | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the JSON text a model wrote as `submit_review` arguments. */
export function parseSubmitReview(argumentsJson: string): ParsedSubmitReview {
  const parsed = SUBMIT_REVIEW.parse(argumentsJson);
  return parsed.ok ? { ok: true, review: parsed.value } : parsed;
}
