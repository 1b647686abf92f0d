import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { PublishedReport } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { renderReportSummary } from "./render-report-summary.js";

const DEFAULT_HEAD = "d".repeat(40);
const BASE = "b".repeat(40);

const report = (overlay: PublishedReport["overlay"]): PublishedReport =>
  PublishedReport.parse({
    engine: "bwrap",
    sandboxed: true,
    overlay,
    configErrors: [],
    helpers: [],
    findings: [],
    filtered: { mode: "added", dropped: 0 },
    errors: [],
    hunks: {},
    durationMs: 10,
    ai: aiReportOff(),
  });

const configuration = (overlay: PublishedReport["overlay"]): string =>
  renderReportSummary(report(overlay), { annotated: 0 })
    .summary.split("\n")
    .find((line) => line.startsWith("**Configuration:**")) ?? "";

describe("renderReportSummary names the commit `.ai/` came from", () => {
  it.each<[string, PublishedReport["overlay"], string]>([
    [
      "the default branch's head",
      { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: DEFAULT_HEAD }, ignoredPrChanges: [] },
      `**Configuration:** \`.ai/\` from the head of \`main\`, commit \`${DEFAULT_HEAD}\`.`,
    ],
    [
      "the base commit (the operator's or the CLI's choice)",
      { source: "base", failedClosed: false, commit: { from: "base", ref: "release/1.x", sha: BASE }, ignoredPrChanges: [] },
      `**Configuration:** \`.ai/\` from the PR's base on \`release/1.x\`, commit \`${BASE}\`.`,
    ],
    [
      "a default branch without `.ai/`",
      { source: "absent", failedClosed: false, commit: { from: "ref", ref: "refs/heads/trunk", sha: DEFAULT_HEAD }, ignoredPrChanges: [] },
      `**Configuration:** \`.ai/\` nowhere: the head of \`trunk\`, commit \`${DEFAULT_HEAD}\`, has none.`,
    ],
    [
      "an unreadable `.ai/`",
      { source: "failed-closed", failedClosed: true, commit: { from: "ref", ref: "refs/heads/main", sha: DEFAULT_HEAD }, ignoredPrChanges: [] },
      `**Configuration:** \`.ai/\` nowhere: the head of \`main\`, commit \`${DEFAULT_HEAD}\`, could not be read, so the PR's \`.ai/\` was removed (failed closed).`,
    ],
    [
      "no commit at all",
      { source: "failed-closed", failedClosed: true, commit: null, ignoredPrChanges: [".ai/x"] },
      "**Configuration:** `.ai/` nowhere: the trusted commit could not be read, so the PR's `.ai/` was removed (failed closed); 1 change(s) this PR made under `.ai/` were ignored.",
    ],
  ])("%s", (_name, overlay, line) => {
    expect(configuration(overlay)).toBe(line);
  });

  it.each([
    ["a report that names no commit for a written `.ai/`", { source: "ref", failedClosed: false, commit: null, ignoredPrChanges: [] }, /must name the commit/],
    [
      "a ref that could carry Markdown",
      { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main`](x)", sha: DEFAULT_HEAD }, ignoredPrChanges: [] },
      /ref/,
    ],
    ["a short SHA", { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: "abc" }, ignoredPrChanges: [] }, /sha/],
    [
      "an unknown key",
      { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: DEFAULT_HEAD, url: "x" }, ignoredPrChanges: [] },
      /url|unrecognized/i,
    ],
  ])("the publisher's contract refuses %s", (_name, overlay, message) => {
    expect(() => report(overlay as PublishedReport["overlay"])).toThrow(message);
  });
});
