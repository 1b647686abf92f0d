import { toRanges, type LineRange } from "./line-ranges.js";
import { unquoteGitPath } from "./unquote-git-path.js";

export interface FileHunks {
  /** Lines the head added or changed. */
  readonly added: LineRange[];
  /** New-side extent of every hunk, context lines included (reviewdog's diff_context). */
  readonly hunks: LineRange[];
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses `git diff` patch output line by line, keyed by new path. Hunk bodies are consumed by the
 * counts in their headers, so a content line that happens to read "+++ b/x" or "diff --git" can
 * never be taken for a header. Paths come from the `+++` header (unambiguous, C-quoted when
 * needed); sections without one (pure renames, mode changes, binaries) have no lines to report.
 */
export class PatchParser {
  readonly #files = new Map<string, FileHunks>();
  #tail = "";
  #path: string | null = null;
  #oldLeft = 0;
  #newLeft = 0;
  #newLine = 0;
  #added: number[] = [];

  push(chunk: string): void {
    const lines = (this.#tail + chunk).split("\n");
    this.#tail = lines.pop() ?? "";
    for (const line of lines) this.#line(line);
  }

  finish(): Map<string, FileHunks> {
    if (this.#tail !== "") this.#line(this.#tail);
    this.#tail = "";
    this.#flushFile();
    return this.#files;
  }

  #line(line: string): void {
    if (this.#oldLeft > 0 || this.#newLeft > 0) {
      this.#hunkLine(line);
    } else if (line.startsWith("diff --git ")) {
      this.#flushFile();
      this.#path = null;
    } else if (line.startsWith("+++ ")) {
      // git appends a tab to names containing spaces, for GNU patch; a quoted name never ends in one.
      const raw = unquoteGitPath(line.slice(4).replace(/\t$/, ""));
      this.#path = raw === "/dev/null" ? null : raw.replace(/^b\//, "");
    } else if (line.startsWith("@@ ")) {
      this.#hunkHeader(line);
    }
  }

  #hunkHeader(line: string): void {
    const match = HUNK_HEADER.exec(line);
    if (match === null) return;
    this.#oldLeft = match[1] === undefined ? 1 : Number(match[1]);
    this.#newLine = Number(match[2]);
    this.#newLeft = match[3] === undefined ? 1 : Number(match[3]);
    if (this.#newLeft > 0 && this.#path !== null) {
      this.#current().hunks.push({ start: this.#newLine, end: this.#newLine + this.#newLeft - 1 });
    }
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
      this.#added.push(this.#newLine);
      this.#newLeft -= 1;
      this.#newLine += 1;
    }
    // "\ No newline at end of file" consumes nothing.
  }

  #current(): FileHunks {
    const path = this.#path ?? "";
    let entry = this.#files.get(path);
    if (entry === undefined) {
      entry = { added: [], hunks: [] };
      this.#files.set(path, entry);
    }
    return entry;
  }

  #flushFile(): void {
    if (this.#path !== null && this.#added.length > 0) this.#current().added.push(...toRanges(this.#added));
    this.#added = [];
  }
}
