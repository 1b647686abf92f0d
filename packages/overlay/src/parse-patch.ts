import type { LineRange } from "./line-ranges.js";
import { unquoteGitPath } from "./unquote-git-path.js";

export interface FileHunks {
  /** Lines the head added or changed. */
  readonly added: LineRange[];
  /** New-side extent of every hunk, context lines included (reviewdog's diff_context). */
  readonly hunks: LineRange[];
  /**
   * Old-side extent of every hunk, context lines included: where a comment on the base side
   * (GitHub's `side: "LEFT"`) may go. A hunk that only adds has none on this side, as one that
   * only deletes has none in `hunks`.
   */
  readonly baseHunks: LineRange[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
/**
 * The most of one line kept: a header needs no more (a C-quoted path of 4,096 bytes is at most
 * 16 KiB), and a content line is read by its first character. A PR adding one 64 MiB line cost
 * 49 s when the unfinished line was re-split with every chunk.
 */
export const MAX_PATCH_LINE = 32 * 1024;

/**
 * Parses `git diff` patch output line by line, keyed by new path. Hunk bodies are consumed by the
 * counts in their headers, so a content line that happens to read "+++ b/x" or "diff --git" can
 * never be taken for a header. Paths come from the `+++` header (unambiguous, C-quoted when
 * needed); sections without one (pure renames, mode changes, binaries) have no lines to report,
 * nor does a section whose `+++` line is longer than {@link MAX_PATCH_LINE}. Each chunk is
 * scanned once, whatever the length of its lines.
 */
export class PatchParser {
  readonly #files = new Map<string, FileHunks>();
  /** The start of the unfinished line, in pieces (joined once, when its newline arrives). */
  #pending: string[] = [];
  #pendingLength = 0;
  #pendingCut = false;
  #path: string | null = null;
  #oldLeft = 0;
  #newLeft = 0;
  #newLine = 0;
  #added: { start: number; end: number }[] = [];

  push(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      this.#keep(chunk, start, end);
      this.#line(this.#takeLine());
      start = end + 1;
    }
    this.#keep(chunk, start, chunk.length);
  }

  finish(): Map<string, FileHunks> {
    if (this.#pendingLength > 0 || this.#pendingCut) this.#line(this.#takeLine());
    this.#flushFile();
    return this.#files;
  }

  // Keeps `chunk[start, end)` as part of the unfinished line, up to MAX_PATCH_LINE in all.
  #keep(chunk: string, start: number, end: number): void {
    const room = MAX_PATCH_LINE - this.#pendingLength;
    if (end - start > room) this.#pendingCut = true;
    const stop = Math.min(end, start + Math.max(room, 0));
    if (stop > start) {
      this.#pending.push(chunk.slice(start, stop));
      this.#pendingLength += stop - start;
    }
  }

  #takeLine(): { readonly text: string; readonly cut: boolean } {
    const line = { text: this.#pending.join(""), cut: this.#pendingCut };
    this.#pending = [];
    this.#pendingLength = 0;
    this.#pendingCut = false;
    return line;
  }

  #line({ text: line, cut }: { readonly text: string; readonly cut: boolean }): void {
    if (this.#oldLeft > 0 || this.#newLeft > 0) {
      this.#hunkLine(line);
    } else if (line.startsWith("diff --git ")) {
      this.#flushFile();
      this.#path = null;
    } else if (line.startsWith("+++ ")) {
      // git appends a tab to names containing spaces, for GNU patch; a quoted name never ends in one.
      const raw = unquoteGitPath(line.slice(4).replace(/\t$/, ""));
      // A header cut short names a prefix of the path, maybe another file's: no path at all.
      this.#path = raw === "/dev/null" || cut ? null : raw.replace(/^b\//, "");
    } else if (line.startsWith("@@ ")) {
      this.#hunkHeader(line);
    }
  }

  #hunkHeader(line: string): void {
    const match = HUNK_HEADER.exec(line);
    if (match === null) return;
    const oldLine = Number(match[1]);
    this.#oldLeft = match[2] === undefined ? 1 : Number(match[2]);
    this.#newLine = Number(match[3]);
    this.#newLeft = match[4] === undefined ? 1 : Number(match[4]);
    if (this.#path === null) return;
    if (this.#newLeft > 0) this.#current().hunks.push({ start: this.#newLine, end: this.#newLine + this.#newLeft - 1 });
    if (this.#oldLeft > 0) this.#current().baseHunks.push({ start: oldLine, end: oldLine + this.#oldLeft - 1 });
  }

  #hunkLine(line: string): void {
    const marker = line.charAt(0);
    if (marker === " " || marker === "") {
      this.#oldLeft -= 1;
      this.#newLeft -= 1;
      this.#newLine += 1;
    } else if (marker === "-") {
      this.#oldLeft -= 1;
    } else if (marker === "+") {
      const last = this.#added.at(-1);
      if (last !== undefined && last.end === this.#newLine - 1) last.end = this.#newLine;
      else this.#added.push({ start: this.#newLine, end: this.#newLine });
      this.#newLeft -= 1;
      this.#newLine += 1;
    }
    // "\ No newline at end of file" consumes nothing.
  }

  #current(): FileHunks {
    const path = this.#path ?? "";
    let entry = this.#files.get(path);
    if (entry === undefined) {
      entry = { added: [], hunks: [], baseHunks: [] };
      this.#files.set(path, entry);
    }
    return entry;
  }

  #flushFile(): void {
    // A loop, not push(...ranges): a spread of 100k+ arguments overflows the stack.
    if (this.#path !== null) for (const range of this.#added) this.#current().added.push(range);
    this.#added = [];
  }
}
