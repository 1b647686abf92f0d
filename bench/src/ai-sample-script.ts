import type { ScriptedToolCall } from "@reviewbot/llm/testing/model-stand-in";

/**
 * What a model reviewing the bundled sample PR (examples/sample-pr) might look at: every
 * repository tool, on both sides, each call different (a repeated one is not run again).
 */
export const SAMPLE_BROWSING: readonly ScriptedToolCall[] = [
  { name: "get_diff", arguments: {} },
  { name: "read_file", arguments: { path: "web/greet.ts" } },
  { name: "read_file", arguments: { path: "app/calc.py" } },
  { name: "read_file", arguments: { path: "app/calc.py", side: "base" } },
  { name: "grep", arguments: { pattern: "shout" } },
  { name: "grep", arguments: { pattern: "divide", path: "app" } },
  { name: "grep", arguments: { pattern: "def [a-z_]+\\(", regex: true } },
  { name: "list_dir", arguments: {} },
  { name: "list_dir", arguments: { path: "web", side: "base" } },
  { name: "read_file", arguments: { path: "README.md", startLine: 1, endLine: 20 } },
];

/** A review of the sample with a finding on each changed source file, anchored as placement checks. */
export const SAMPLE_REVIEW = {
  summary: "Adds divide() and shout(); both have a defect, and the PR also edits .ai/, which is ignored.",
  findings: [
    {
      path: "app/calc.py",
      side: "RIGHT",
      line: 15,
      severity: "error",
      category: "bug",
      title: "undefined_name is not defined",
      body: "Dividing by `None` returns a name that does not exist: this raises `NameError`.",
      anchorText: "        return undefined_name",
    },
    {
      path: "web/greet.ts",
      side: "RIGHT",
      line: 12,
      severity: "warning",
      category: "maintainability",
      title: "debugger statement left in",
      body: "Remove the `debugger` statement before merging.",
      anchorText: "    debugger;",
    },
  ],
} as const;
