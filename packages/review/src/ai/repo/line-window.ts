import { ToolInputError } from "../tools/tool-input-error.js";

export interface LineRequest {
  readonly startLine?: number | undefined;
  readonly endLine?: number | undefined;
}

export interface LineWindow {
  readonly text: string;
  /** First line shown (1-based). */
  readonly startLine: number;
  /** Last line shown; `startLine - 1` when none is. */
  readonly endLine: number;
  readonly totalLines: number;
  /** Whether lines asked for (or, without `endLine`, lines up to the end) were left out or cut. */
  readonly truncated: boolean;
  /** Where the next call starts to read on: `endLine + 1` when lines were left out, else null. */
  readonly nextStartLine: number | null;
}

/**
 * The lines `request` asks for (1-based, inclusive; all by default), at most `maxLines` of them
 * and `maxChars` characters, joined by `\n`. A first line longer than `maxChars` is cut (the rest
 * of it cannot be read), so that a minified file still shows something. Lines are what `\n` separates; a final `\n` ends the last
 * line rather than starting an empty one.
 */
export function lineWindow(text: string, request: LineRequest, limits: { readonly maxLines: number; readonly maxChars: number }): LineWindow {
  const lines = text === "" ? [] : text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const totalLines = lines.length;
  const startLine = request.startLine ?? 1;
  const wanted = Math.min(request.endLine ?? totalLines, totalLines);
  if (request.endLine !== undefined && request.endLine < startLine) {
    throw new ToolInputError(`read_file: endLine ${request.endLine} is before startLine ${startLine}`);
  }
  if (startLine > Math.max(totalLines, 1)) {
    throw new ToolInputError(`read_file: startLine ${startLine} is past the end: the file has ${totalLines} lines`);
  }
  const shown: string[] = [];
  let chars = 0;
  let endLine = startLine - 1;
  let cut = false;
  while (endLine < wanted && shown.length < limits.maxLines) {
    const line = lines[endLine] ?? "";
    const cost = line.length + (shown.length === 0 ? 0 : 1);
    if (chars + cost > limits.maxChars) {
      if (shown.length === 0) {
        shown.push(line.slice(0, limits.maxChars));
        endLine += 1;
        cut = true;
      }
      break;
    }
    shown.push(line);
    chars += cost;
    endLine += 1;
  }
  const more = endLine < wanted;
  return { text: shown.join("\n"), startLine, endLine, totalLines, truncated: more || cut, nextStartLine: more ? endLine + 1 : null };
}
