import { describe, expect, it } from "vitest";
import { renderSinkResult } from "./render-sink-result.js";

describe("renderSinkResult", () => {
  it.each([
    [
      "a check run with annotations",
      {
        conclusion: "failure",
        title: "reviewbot: 2 findings",
        summary: "flake8: findings\n",
        annotations: [
          { path: "app/calc.py", start_line: 15, end_line: 15, annotation_level: "failure", title: "F821", message: "undefined name 'y'\nmore" },
          { path: "web/greet.ts", annotation_level: "warning", message: "file-level" },
        ],
      },
      "reviewbot: 2 findings: failure\n\nflake8: findings\n\nannotations (2):\n  app/calc.py:15  failure  [F821] undefined name 'y'\n  web/greet.ts  warning  file-level\n",
    ],
    ["fields missing", {}, "review: unknown\n\nannotations (0):\n"],
    ["not an object", [1, 2], "review: unknown\n\nannotations (0):\n"],
  ])("%s", (_name, input, expected) => {
    expect(renderSinkResult(input)).toBe(expected);
  });
});
