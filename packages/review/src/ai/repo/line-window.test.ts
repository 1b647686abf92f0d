import { describe, expect, it } from "vitest";
import { lineWindow } from "./line-window.js";
import { ToolInputError } from "../tools/tool-input-error.js";

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const limits = { maxLines: 400, maxChars: 50_000 };

describe("lineWindow", () => {
  it.each([
    ["a whole small file", numbered(3), {}, { text: "line 1\nline 2\nline 3", startLine: 1, endLine: 3, totalLines: 3, truncated: false, nextStartLine: null }],
    ["no final newline", "a\nb", {}, { text: "a\nb", endLine: 2, totalLines: 2, truncated: false }],
    ["an empty file", "", {}, { text: "", startLine: 1, endLine: 0, totalLines: 0, truncated: false, nextStartLine: null }],
    ["a blank last line", "a\n\n", {}, { text: "a\n", totalLines: 2 }],
    ["a range inside", numbered(10), { startLine: 4, endLine: 5 }, { text: "line 4\nline 5", startLine: 4, endLine: 5, truncated: false, nextStartLine: null }],
    ["a range past the end", numbered(10), { startLine: 9, endLine: 50 }, { text: "line 9\nline 10", endLine: 10, truncated: false }],
    ["from a start line on", numbered(10), { startLine: 10 }, { text: "line 10", startLine: 10, endLine: 10, truncated: false }],
    ["CRLF lines kept as they are", "a\r\nb\r\n", {}, { text: "a\r\nb\r", totalLines: 2 }],
  ] as const)("shows %s", (_name, text, request, expected) => {
    expect(lineWindow(text, request, limits)).toMatchObject(expected);
  });

  it("stops at maxLines and says where to go on", () => {
    const first = lineWindow(numbered(10_000), {}, limits);
    expect(first).toMatchObject({ startLine: 1, endLine: 400, totalLines: 10_000, truncated: true, nextStartLine: 401 });
    expect(first.text.split("\n")).toHaveLength(400);
    const second = lineWindow(numbered(10_000), { startLine: first.nextStartLine ?? 0 }, limits);
    expect(second).toMatchObject({ startLine: 401, endLine: 800, nextStartLine: 801 });
    expect(second.text.startsWith("line 401\n")).toBe(true);
  });

  it("stops at maxChars on a line boundary", () => {
    const window = lineWindow("aaaa\nbbbb\ncccc\n", {}, { maxLines: 100, maxChars: 10 });
    expect(window).toMatchObject({ text: "aaaa\nbbbb", endLine: 2, truncated: true, nextStartLine: 3 });
  });

  it("cuts a first line longer than maxChars rather than showing nothing", () => {
    expect(lineWindow(`${"x".repeat(100)}\nnext\n`, {}, { maxLines: 100, maxChars: 10 })).toMatchObject({
      text: "x".repeat(10),
      endLine: 1,
      truncated: true,
      nextStartLine: 2,
    });
    expect(lineWindow("x".repeat(100), {}, { maxLines: 100, maxChars: 10 })).toMatchObject({ truncated: true, nextStartLine: null });
  });

  it.each([
    [{ startLine: 11 }, "startLine 11 is past the end: the file has 10 lines"],
    [{ startLine: 5, endLine: 4 }, "endLine 4 is before startLine 5"],
  ])("refuses %j", (request, message) => {
    expect(() => lineWindow(numbered(10), request, limits)).toThrow(ToolInputError);
    expect(() => lineWindow(numbered(10), request, limits)).toThrow(message);
  });
});
