import { describe, expect, it } from "vitest";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { Report } from "./report.js";
import { toPublishedReport } from "./to-published-report.js";

const finding = { path: "a.py", line: 3, endLine: null, column: 1, severity: "error", message: "bad", rule: "E1", helper: "lint" } as const;
const helper = {
  name: "lint",
  image: "localhost/reviewbot/base:latest",
  engine: "bwrap",
  sandboxed: true,
  outcome: "findings",
  exitCode: 1,
  signal: null,
  timedOut: false,
  oomKilled: false,
  outputTruncated: false,
  durationMs: 12.6,
  stdout: "secret output",
  stderr: "",
  findings: [finding],
  problems: [],
  install: null,
} as const;
const report: Report = {
  repo: "/srv/repos/acme/x",
  base: { ref: "main", sha: "a".repeat(40) },
  head: { ref: "b".repeat(40), sha: "b".repeat(40) },
  engine: "bwrap",
  sandboxed: true,
  overlay: {
    source: "ref",
    failedClosed: false,
    reason: null,
    commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) },
    ignoredPrChanges: [".ai/x"],
  },
  context: null,
  config: { errors: [], minInlineSeverity: "notice" },
  skipped: null,
  helpers: [helper],
  findings: [{ ...finding, anchor: "0123456789abcdef" }],
  filtered: { mode: "added", dropped: 2, skippedByContext: 0 },
  errors: [],
  hunks: { "a.py": [{ start: 1, end: 5 }] },
  timings: { checkoutMs: 1, contextMs: 1, helpersMs: 1, findingsMs: 1, aiMs: 0, totalMs: 40.4 },
  ai: aiReportOff(),
};

describe("toPublishedReport", () => {
  it.each([
    [
      "a report with findings",
      report,
      {
        findings: [{ ...finding, anchor: "0123456789abcdef" }],
        hunks: { "a.py": [{ start: 1, end: 5 }] },
        durationMs: 40,
        filtered: { mode: "added", dropped: 2 },
      },
    ],
    [
      "helper output is never handed on",
      report,
      { helpers: [{ name: "lint", image: helper.image, outcome: "findings", durationMs: 13, findings: 1, problems: [] }] },
    ],
    ["long error lines are cut", { ...report, errors: ["x".repeat(5000)] }, { errors: [`${"x".repeat(1999)}…`] }],
    [
      "the commit .ai/ came from",
      report,
      { overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [".ai/x"] } },
    ],
    [
      "configuration errors as their messages",
      { ...report, config: { errors: [{ path: "helpers[0]", message: "helpers[0]: bad" }], minInlineSeverity: "notice" as const } },
      { configErrors: ["helpers[0]: bad"] },
    ],
    [
      "the settings' inline floor and why they skipped the review",
      { ...report, config: { errors: [], minInlineSeverity: "warning" as const }, skipped: { reason: "label" as const, label: "no-review" } },
      { minInlineSeverity: "warning", skipped: { reason: "label", label: "no-review" } },
    ],
  ])("%s", (_name, input, expected) => {
    const published = toPublishedReport(input);
    expect(published).toMatchObject(expected);
    expect(JSON.stringify(published)).not.toContain("secret output");
  });
});
