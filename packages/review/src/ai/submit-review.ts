import { z } from "zod";
import { toolParameters } from "./tool-parameters.js";
import type { ToolSpec } from "@reviewbot/llm/chat";

/** What kind of problem a finding names: a closed set, so reports can group and filter by it. */
export const FINDING_CATEGORIES = ["bug", "security", "performance", "correctness", "maintainability", "style", "docs", "tests"] as const;

export const MAX_SUMMARY_CHARS = 4000;
export const MAX_AI_FINDINGS = 50;
/** The longest `submit_review` arguments read: JSON.parse holds all of them in memory at once. */
export const MAX_SUBMIT_REVIEW_CHARS = 200_000;
/** How many problems one answer to the model lists: enough to fix a call, too few to flood the turn. */
const MAX_PROBLEMS = 10;

const lineNumber = z.int().min(1).max(10_000_000);

/** One comment the model wants on the PR's diff; placed only after `placeFindings` checks it. */
export const AiFinding = z
  .strictObject({
    path: z.string().min(1).max(1000).describe("The file's path in the PR as the diff names it (the new path of a renamed file)."),
    side: z.enum(["RIGHT", "LEFT"]).describe("RIGHT: a line of the PR's version; LEFT: a line of the base version (a removed line)."),
    startLine: lineNumber.optional().describe("First line of a multi-line comment; omit for one line."),
    line: lineNumber.describe("The line the comment is on (the last line of a range); must lie in a hunk of the diff on that side."),
    severity: z.enum(["error", "warning", "notice"]),
    category: z.enum(FINDING_CATEGORIES),
    title: z.string().min(1).max(200),
    body: z.string().min(1).max(4000).describe("Markdown: what is wrong and why."),
    anchorText: z.string().max(500).describe("The exact text of the file at `line` on that side, without a diff marker: the comment is dropped if it does not match."),
    suggestion: z
      .string()
      .max(4000)
      .optional()
      .describe("RIGHT side only: the text replacing lines startLine..line (or line alone), without diff markers."),
  })
  .refine((finding) => finding.startLine === undefined || finding.startLine <= finding.line, {
    message: "startLine must not be after line",
    path: ["startLine"],
  });
export type AiFinding = z.infer<typeof AiFinding>;

/** The arguments of the `submit_review` tool: the model's whole review of one chunk. */
export const SubmitReview = z.strictObject({
  summary: z.string().max(MAX_SUMMARY_CHARS).describe("A short Markdown overview of the change and the review."),
  findings: z.array(AiFinding).max(MAX_AI_FINDINGS),
});
export type SubmitReview = z.infer<typeof SubmitReview>;

/**
 * The tool the model ends its review with. Its parameters are a plain JSON Schema object (no
 * `$schema`, no `$ref`), which both OpenAI function `parameters` and Anthropic `input_schema`
 * take; optional fields keep it outside OpenAI's `strict` mode, so the call is checked here by
 * {@link parseSubmitReview} instead.
 */
export const SUBMIT_REVIEW_TOOL: ToolSpec = {
  name: "submit_review",
  description: "Submit your review: a summary and the findings, each anchored to a line of the diff. Call it once, at the end.",
  parameters: toolParameters(SubmitReview),
};

/** The arguments as {@link SubmitReview}, or the problems to tell the model so it can call again. */
export type ParsedSubmitReview = { readonly ok: true; readonly review: SubmitReview } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Parses the JSON text a model wrote as `submit_review` arguments. Text over
 * {@link MAX_SUBMIT_REVIEW_CHARS} is refused before it is parsed; problems name the field
 * (`findings[2].line: …`), at most ten of them, each short.
 */
export function parseSubmitReview(argumentsJson: string): ParsedSubmitReview {
  if (argumentsJson.length > MAX_SUBMIT_REVIEW_CHARS) {
    return { ok: false, problems: [`the arguments are ${argumentsJson.length} characters long; at most ${MAX_SUBMIT_REVIEW_CHARS} are read`] };
  }
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch (error) {
    return { ok: false, problems: [`the arguments are not valid JSON (${short(error instanceof Error ? error.message : String(error))})`] };
  }
  const result = SubmitReview.safeParse(value);
  if (result.success) return { ok: true, review: result.data };
  const problems = result.error.issues.slice(0, MAX_PROBLEMS).map((issue) => `${fieldPath(issue.path)}: ${short(issue.message)}`);
  const more = result.error.issues.length - problems.length;
  return { ok: false, problems: more > 0 ? [...problems, `and ${more} more`] : problems };
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  return path.map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${short(String(key), 60)}`)).join("");
}

// JSON.parse and zod messages may quote the model's text (a key, a value): kept short.
function short(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
