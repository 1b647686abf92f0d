import { unquoteGitPath } from "@reviewbot/overlay/unquote-git-path";

export interface BudgetedDiff {
  /** The patch text: whole files' sections, in git's order, within the byte budget. */
  readonly text: string;
  /** Whether anything was left out or cut. */
  readonly truncated: boolean;
  /** Files whose sections did not fit (at most {@link MAX_OMITTED_NAMES} named). */
  readonly omitted: readonly string[];
  readonly omittedCount: number;
  /** When no file fitted: the file whose section is shown cut at a line boundary. */
  readonly cut: string | null;
}

export const MAX_OMITTED_NAMES = 100;
const HEADER = Buffer.from("diff --git ");
/** Enough of any header line: a C-quoted path of 4,096 bytes is at most 16 KiB. */
const MAX_HEADER_LINE = 32 * 1024;

interface Section {
  name: string | null;
  /** Still in the extended header, where `rename to` / `copy to` name the new path. */
  inHeader: boolean;
  /** Complete lines, as long as they fit in the budget. */
  lines: Buffer[];
  kept: number;
  bytes: number;
}

/**
 * Cuts a streamed `git diff --patch` to a byte budget file by file: each file's section (from one
 * `diff --git` line to the next) is kept whole if it fits in what is left, else named as omitted;
 * later, smaller files still go in. Hunk lines always start with ` `, `+`, `-` or `\`, so a line
 * starting `diff --git ` is a header. If no section fits, the first is shown up to the budget, cut
 * at a line boundary. Each byte is copied a bounded number of times; memory stays near the budget.
 */
export class DiffBudget {
  readonly #maxBytes: number;
  readonly #lineCap: number;
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #omitted: string[] = [];
  #omittedCount = 0;
  #lastOmitted: string | null = null;
  #fallback: Section | null = null;
  #section: Section = emptySection(null);
  #line: Buffer[] = [];
  #lineKept = 0;
  #lineBytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#lineCap = Math.max(maxBytes, MAX_HEADER_LINE);
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, end + 1));
      this.#endLine();
      start = end + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
  }

  finish(): BudgetedDiff {
    if (this.#lineBytes > 0) this.#endLine();
    this.#close();
    const fallback = this.#keptBytes === 0 ? this.#fallback : null;
    if (fallback !== null) {
      // The fallback was the first file omitted: it is shown (cut), no longer omitted.
      this.#omitted.shift();
      this.#omittedCount -= 1;
    }
    const text = Buffer.concat(fallback === null ? this.#kept : fallback.lines).toString("utf8");
    const cut = fallback === null ? null : (fallback.name ?? "");
    const omitted = this.#omitted.slice(0, MAX_OMITTED_NAMES);
    return { text, truncated: this.#omittedCount > 0 || cut !== null, omitted, omittedCount: this.#omittedCount, cut };
  }

  #take(piece: Buffer): void {
    const room = this.#lineCap - this.#lineKept;
    if (room > 0) {
      const kept = piece.subarray(0, room);
      this.#line.push(Buffer.from(kept));
      this.#lineKept += kept.length;
    }
    this.#lineBytes += piece.length;
  }

  #endLine(): void {
    const line = Buffer.concat(this.#line);
    const bytes = this.#lineBytes;
    this.#line = [];
    this.#lineKept = 0;
    this.#lineBytes = 0;
    if (line.subarray(0, HEADER.length).equals(HEADER)) {
      this.#close();
      this.#section = emptySection(sectionName(line.subarray(HEADER.length, MAX_HEADER_LINE)));
    } else if (this.#section.inHeader) {
      this.#headerLine(line.subarray(0, MAX_HEADER_LINE).toString("utf8").replace(/\n$/, ""));
    }
    const section = this.#section;
    // A line is kept whole or not at all, so that a cut section still ends at a line boundary.
    if (section.kept === section.bytes && bytes === line.length && section.kept + bytes <= this.#maxBytes) {
      section.lines.push(line);
      section.kept += bytes;
    }
    section.bytes += bytes;
  }

  #headerLine(text: string): void {
    const renamed = /^(?:rename|copy) to (.*)$/.exec(text);
    if (renamed !== null) this.#section.name = unquoteGitPath(renamed[1] ?? "");
    else if (/^(?:@@ |--- |\+\+\+ |Binary files )/.test(text)) this.#section.inHeader = false;
  }

  #close(): void {
    const section = this.#section;
    if (section.bytes === 0) return;
    if (section.bytes <= this.#maxBytes - this.#keptBytes) {
      for (const line of section.lines) this.#kept.push(line);
      this.#keptBytes += section.bytes;
      return;
    }
    if (this.#fallback === null && this.#keptBytes === 0) this.#fallback = section;
    const name = section.name ?? "";
    // A type change (file to symlink) is two sections of one path: one name.
    if (name === this.#lastOmitted) return;
    this.#lastOmitted = name;
    this.#omittedCount += 1;
    // One name more than shown: the fallback may take the first one back.
    if (this.#omitted.length <= MAX_OMITTED_NAMES) this.#omitted.push(name);
  }
}

function emptySection(name: string | null): Section {
  return { name, inHeader: name !== null, lines: [], kept: 0, bytes: 0 };
}

/**
 * The new path named by `a/<old> b/<new>` (either C-quoted). Without a rename both halves name the
 * same path, so the split is where the halves are equal; a rename is named by its `rename to` line.
 */
function sectionName(rest: Buffer): string {
  const text = rest.toString("utf8").replace(/\n$/, "");
  const half = (text.length - 1) / 2;
  if (Number.isInteger(half) && text.charAt(half) === " ") {
    const oldPath = unquoteGitPath(text.slice(0, half));
    const newPath = unquoteGitPath(text.slice(half + 1));
    if (oldPath.startsWith("a/") && newPath.startsWith("b/") && oldPath.slice(2) === newPath.slice(2)) return newPath.slice(2);
  }
  return text;
}
