import type { ChangedFile, LineRange, PullDiff } from "@reviewbot/overlay/pull-diff";
import { normaliseLine } from "../../findings/anchor-hash.js";
import type { AiFinding } from "../tools/submit-review.js";

export type DiffSide = AiFinding["side"];

/**
 * The text of one line of a file (1-based, without its line ending), or null past its end: `path`
 * at the diff's `fromSha` for LEFT (the file's previous path when renamed), at `headSha` for RIGHT.
 * The caller reads git objects by SHA, never a work tree the PR could have changed.
 */
export type LineText = (side: DiffSide, path: string, line: number) => Promise<string | null>;

export interface UnplacedFinding {
  readonly finding: AiFinding;
  /** Why it cannot go on the diff, worded for the model (no file text: that is untrusted). */
  readonly reason: string;
}

export interface Placement {
  /** Findings that can be posted as review comments as they are; a one-line range lost its `startLine`. */
  readonly placed: readonly AiFinding[];
  readonly unplaced: readonly UnplacedFinding[];
}

/**
 * Keeps the findings GitHub will anchor where the model meant them. A finding is placed only if
 * its path is a file of the diff; its lines (`startLine..line`) lie within one hunk of its side
 * (`hunks` for RIGHT, `baseHunks` for LEFT); its `anchorText` is the file's text at `line` on
 * that side, whitespace runs collapsed and ends trimmed (a model off by a line is caught here, not
 * on the PR); and a suggestion is on the RIGHT side and changes the text of its lines. A finding
 * with the path, side, line and title of one placed before it is a duplicate. Order is kept.
 */
export async function placeFindings(findings: readonly AiFinding[], diff: PullDiff, lineText: LineText): Promise<Placement> {
  const files = new Map(diff.files.map((file) => [file.path, file]));
  const placed: AiFinding[] = [];
  const unplaced: UnplacedFinding[] = [];
  const seen = new Set<string>();
  for (const finding of findings) {
    const key = JSON.stringify([finding.path, finding.side, finding.line, finding.title]);
    const reason = seen.has(key) ? "duplicate of an earlier finding" : await problem(finding, files.get(finding.path), lineText);
    if (reason !== null) {
      unplaced.push({ finding, reason });
      continue;
    }
    seen.add(key);
    placed.push(finding.startLine === finding.line ? withoutStart(finding) : finding);
  }
  return { placed, unplaced };
}

async function problem(finding: AiFinding, file: ChangedFile | undefined, lineText: LineText): Promise<string | null> {
  if (file === undefined) return "path not in the diff";
  const { side, line } = finding;
  const start = finding.startLine ?? line;
  if (start > line) return `startLine ${start} is after line ${line}`;
  const hunk = (side === "RIGHT" ? file.hunks : file.baseHunks).find((range) => line >= range.start && line <= range.end);
  if (hunk === undefined) return `line ${line} is outside every hunk of the ${side} side`;
  if (start < hunk.start) return `lines ${start}-${line} are not all in one hunk of the ${side} side`;
  const path = side === "LEFT" ? (file.previousPath ?? file.path) : file.path;
  const text = await lineText(side, path, line);
  if (text === null) return `line ${line} does not exist on the ${side} side`;
  if (normaliseLine(text) !== normaliseLine(finding.anchorText)) return `anchorText does not match line ${line}`;
  if (finding.suggestion === undefined) return null;
  if (side === "LEFT") return "suggestion on LEFT";
  return (await isCurrentText(finding.suggestion, path, { start, end: line }, lineText)) ? "suggestion equals current text" : null;
}

// A suggestion replaces its lines exactly (GitHub applies it as written): only a final newline,
// which GitHub adds anyway, is ignored. One with another number of lines differs without a read.
async function isCurrentText(suggestion: string, path: string, range: LineRange, lineText: LineText): Promise<boolean> {
  const lines = suggestion.replace(/\r?\n$/, "").split(/\r?\n/);
  if (lines.length !== range.end - range.start + 1) return false;
  for (const [index, text] of lines.entries()) {
    if ((await lineText("RIGHT", path, range.start + index)) !== text) return false;
  }
  return true;
}

function withoutStart(finding: AiFinding): AiFinding {
  const copy = { ...finding };
  delete copy.startLine;
  return copy;
}
