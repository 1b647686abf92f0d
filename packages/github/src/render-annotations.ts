import type { PublishedFinding } from "@reviewbot/contracts/published-report";
import { sanitisePlainText } from "./sanitise-markdown.js";
import { truncateUtf8 } from "./truncate-utf8.js";

/** One check-run annotation as the GitHub API takes it. */
export interface CheckRunAnnotation {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly start_column?: number;
  readonly end_column?: number;
  readonly annotation_level: "failure" | "warning" | "notice";
  readonly message: string;
  readonly title: string;
}

/** GitHub's documented limits: message and raw details 64 KiB, title 255 characters. */
export const ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024;
export const ANNOTATION_TITLE_MAX_BYTES = 255;

const LEVEL = { error: "failure", warning: "warning", notice: "notice" } as const;
const SEVERITY_RANK = { error: 0, warning: 1, notice: 2 } as const;

/**
 * Orders findings so the most important are published first (errors, then warnings, then
 * notices; by path and line within each), which also makes annotation batches deterministic: a
 * retried publish cuts the same batches again.
 */
export function orderFindings(findings: readonly PublishedFinding[]): PublishedFinding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

/**
 * Turns one finding into an annotation. A file-level finding (no line) is placed on line 1,
 * because GitHub requires `start_line`; its message says so. Columns are sent only when the
 * annotation spans one line (GitHub rejects them otherwise). Texts are plain (annotations are not
 * rendered as Markdown) but still have mentions and bidi controls neutralised.
 */
export function renderAnnotation(finding: PublishedFinding): CheckRunAnnotation {
  const startLine = finding.line ?? 1;
  const endLine = finding.line !== null && finding.endLine !== null && finding.endLine >= startLine ? finding.endLine : startLine;
  const where = finding.line === null ? "(file-level finding) " : "";
  const title = finding.rule === null ? finding.helper : `${finding.helper}: ${finding.rule}`;
  const columns = startLine === endLine && finding.line !== null && finding.column !== null ? { start_column: finding.column, end_column: finding.column } : {};
  return {
    path: finding.path,
    start_line: startLine,
    end_line: endLine,
    ...columns,
    annotation_level: LEVEL[finding.severity],
    message: truncateUtf8(sanitisePlainText(where + finding.message), ANNOTATION_MESSAGE_MAX_BYTES) || "(empty message)",
    title: truncateUtf8(sanitisePlainText(title), ANNOTATION_TITLE_MAX_BYTES),
  };
}
