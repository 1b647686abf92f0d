import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { PublishedFinding, PublishedReport } from "@reviewbot/contracts/published-report";
import { isAtLeast, type Severity } from "@reviewbot/contracts/severity";
import { fingerprintMarker, fingerprintOf } from "./finding-fingerprint.js";
import { orderFindings } from "./render-annotations.js";
import { stripControls } from "@reviewbot/core/strip-controls";
import { longestBacktickRun, sanitiseMarkdown } from "./sanitise-markdown.js";
import { truncateUtf8 } from "./truncate-utf8.js";

/** One comment of a PR review, anchored on one side of the diff. */
export interface ReviewComment {
  readonly path: string;
  readonly line: number;
  readonly side: "RIGHT" | "LEFT";
  readonly start_line?: number;
  readonly start_side?: "RIGHT" | "LEFT";
  readonly body: string;
}

export interface RenderedReview {
  readonly body: string;
  readonly comments: readonly ReviewComment[];
  /** Findings left out because a comment of an earlier push already says them (`posted`). */
  readonly repeated: number;
}

/** Default cap on comments in one review, so a noisy helper cannot flood a PR. */
export const DEFAULT_MAX_REVIEW_COMMENTS = 30;
const COMMENT_MAX_BYTES = 16_000;

/**
 * Which PR review of a head: the `review` posted when the review completes, or the `ai` review
 * posted when the api's retry of the AI review alone completes it later (after the model endpoint
 * was down). Each is posted at most once per head.
 */
export type ReviewPart = "review" | "ai";

/** The hidden marker that identifies reviewbot's review (or its later AI review) of one head, so it is posted only once. */
export function reviewMarker(headSha: string, part: ReviewPart = "review"): string {
  return part === "review" ? `<!-- reviewbot:${headSha} -->` : `<!-- reviewbot:${headSha}:${part} -->`;
}

/**
 * Renders the PR review: the AI review's comments (the worker placed each on one hunk of its side
 * and checked its anchor text), then, with `helperComments`, one comment per helper finding whose
 * line lies inside a hunk of the diff (GitHub rejects the whole review if one comment is off the
 * diff). A range becomes a multi-line comment only when both ends lie in the same hunk;
 * otherwise the comment sits on the start line. Findings outside every hunk, and file-level
 * findings, stay annotation-only: the create-review endpoint has no file-level comments, and the
 * check run already shows them. A finding whose fingerprint is in `posted` (commented on at an
 * earlier push, its line's text unchanged) is not commented on again; every comment carries its
 * fingerprint in a hidden marker. A finding less severe than `minSeverity` is not commented on
 * (it stays in the check run's annotations and summary). Returns null when no finding is left to comment on.
 */
export function renderReviewComments(
  report: PublishedReport,
  options: {
    readonly headSha: string;
    readonly maxComments?: number;
    readonly helperComments?: boolean;
    readonly posted?: ReadonlySet<string>;
    readonly part?: ReviewPart;
    readonly minSeverity?: Severity;
    /** Where every finding is, closing the review body; the fleet's check run by default. */
    readonly everyFinding?: string;
  },
): RenderedReview | null {
  const max = options.maxComments ?? DEFAULT_MAX_REVIEW_COMMENTS;
  const helpers = options.helperComments ?? true;
  const posted = options.posted ?? new Set<string>();
  let repeated = 0;
  const minSeverity = options.minSeverity ?? "notice";
  const fresh = (finding: PublishedFinding | PlacedAiFinding): boolean => {
    if (!isAtLeast(finding.severity, minSeverity)) return false;
    const known = posted.has(fingerprintOf(finding) ?? "");
    if (known) repeated += 1;
    return !known;
  };
  const anchored = [
    ...report.ai.findings.filter(fresh).map(aiComment),
    ...(helpers
      ? orderFindings(report.findings).flatMap((finding) => {
          const comment = anchor(finding, report.hunks[finding.path] ?? []);
          return comment !== null && fresh(finding) ? [comment] : [];
        })
      : []),
  ];
  if (anchored.length === 0) return null;
  const comments = anchored.slice(0, max);
  const more = anchored.length - comments.length;
  const body = [
    reviewMarker(options.headSha, options.part),
    `reviewbot left ${comments.length} comment${comments.length === 1 ? "" : "s"} on lines this PR changed` +
      (more > 0 ? ` (${more} more not shown)` : "") +
      (repeated > 0
        ? `; ${repeated} finding${repeated === 1 ? "" : "s"} already commented on at an earlier push ${repeated === 1 ? "is" : "are"} not repeated`
        : "") +
      `; ${options.everyFinding ?? "the `reviewbot` check run lists every finding"}.`,
  ].join("\n");
  return { body, comments, repeated };
}

function anchor(finding: PublishedFinding, hunks: readonly { start: number; end: number }[]): ReviewComment | null {
  if (finding.line === null) return null;
  const start = finding.line;
  const hunk = hunks.find((h) => h.start <= start && start <= h.end);
  if (hunk === undefined) return null;
  const end = finding.endLine;
  const body = marked(finding, commentBody(finding));
  if (end !== null && end > start && end <= hunk.end) {
    return { path: finding.path, start_line: start, start_side: "RIGHT", line: end, side: "RIGHT", body };
  }
  return { path: finding.path, line: start, side: "RIGHT", body };
}

function commentBody(finding: PublishedFinding): string {
  const title = finding.rule === null ? finding.helper : `${finding.helper}: ${finding.rule}`;
  return `**${sanitiseMarkdown(title)}** (${finding.severity})\n\n${sanitiseMarkdown(finding.message, { inline: false })}`;
}

// The body cut to fit with its fingerprint's marker at the end, where the cut cannot reach it.
function marked(finding: PublishedFinding | PlacedAiFinding, body: string): string {
  const fingerprint = fingerprintOf(finding);
  const marker = fingerprint === null ? "" : `\n\n${fingerprintMarker(fingerprint)}`;
  return truncateUtf8(body, COMMENT_MAX_BYTES - Buffer.byteLength(marker)) + marker;
}

/**
 * An AI finding as a review comment: title and body escaped like helper messages (no link, image,
 * HTML or mention can form), a suggestion in a fence longer than any backtick run inside it (so it
 * cannot close the fence early) with control and bidi characters removed.
 */
function aiComment(finding: PlacedAiFinding): ReviewComment {
  const heading = `**${sanitiseMarkdown(finding.title)}** (${finding.severity}, ${finding.category}, AI review)`;
  const parts = [heading, sanitiseMarkdown(finding.body, { inline: false })];
  if (finding.suggestion !== null && finding.side === "RIGHT") {
    // Inside a fence nothing renders and nobody is mentioned: only the fence itself must hold.
    const text = stripControls(finding.suggestion);
    const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
    parts.push(`${fence}suggestion\n${text}\n${fence}`);
  }
  const body = marked(finding, parts.join("\n\n"));
  const range = finding.startLine !== null && finding.startLine < finding.line ? { start_line: finding.startLine, start_side: finding.side } : {};
  return { path: finding.path, ...range, line: finding.line, side: finding.side, body };
}
