import type { PublishedFinding } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { orderFindings, renderAnnotation } from "./render-annotations.js";

const base: PublishedFinding = {
  path: "src/a.ts",
  line: 3,
  endLine: null,
  column: null,
  severity: "error",
  message: "bad",
  rule: "no-bad",
  helper: "eslint",
  anchor: null,
};

describe("renderAnnotation", () => {
  it.each([
    ["single line with column", { column: 5 }, { start_line: 3, end_line: 3, start_column: 5, end_column: 5 }],
    ["range drops columns", { endLine: 7, column: 5 }, { start_line: 3, end_line: 7 }],
    ["end before start collapses", { endLine: 1 }, { start_line: 3, end_line: 3 }],
    ["file-level goes on line 1", { line: null, endLine: 9, column: 2 }, { start_line: 1, end_line: 1 }],
  ] as const)("%s", (_name, patch, expected) => {
    const annotation = renderAnnotation({ ...base, ...patch });
    expect({
      start_line: annotation.start_line,
      end_line: annotation.end_line,
      start_column: annotation.start_column,
      end_column: annotation.end_column,
    }).toEqual({ start_column: undefined, end_column: undefined, ...expected });
  });

  it.each([
    ["error", "failure"],
    ["warning", "warning"],
    ["notice", "notice"],
  ] as const)("maps %s to %s", (severity, level) => {
    expect(renderAnnotation({ ...base, severity }).annotation_level).toBe(level);
  });

  it.each([
    ["rule", "no-bad", "eslint: no-bad"],
    ["no rule", null, "eslint"],
  ] as const)("title with %s", (_name, rule, title) => {
    expect(renderAnnotation({ ...base, rule }).title).toBe(title);
  });

  it("caps the message at 64 KiB and neutralises mentions", () => {
    const annotation = renderAnnotation({ ...base, message: `@admin ${"x".repeat(65_535)}` });
    expect(Buffer.byteLength(annotation.message)).toBeLessThanOrEqual(65_536);
    expect(annotation.message.startsWith("@\u200Dadmin")).toBe(true);
  });

  it("marks file-level findings in the message", () => {
    expect(renderAnnotation({ ...base, line: null }).message).toBe("(file-level finding) bad");
  });
});

describe("orderFindings", () => {
  it("puts errors first, then by path and line", () => {
    const ordered = orderFindings([
      { ...base, severity: "notice", path: "a" },
      { ...base, severity: "error", path: "b", line: 9 },
      { ...base, severity: "warning", path: "a" },
      { ...base, severity: "error", path: "b", line: 2 },
      { ...base, severity: "error", path: "a", line: 50 },
    ]);
    expect(ordered.map((f) => `${f.severity}:${f.path}:${String(f.line)}`)).toEqual(["error:a:50", "error:b:2", "error:b:9", "warning:a:3", "notice:a:3"]);
  });
});
