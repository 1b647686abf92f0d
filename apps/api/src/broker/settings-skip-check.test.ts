import { describe, expect, it } from "vitest";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { PublishedReport, SettingsSkipped } from "@reviewbot/contracts/published-report";
import { parseReviewJob, type ReviewJob } from "@reviewbot/contracts/review-job";
import { refuseUnfoundedSkip } from "./settings-skip-check.js";

const job = parseReviewJob({
  installationId: 1,
  repositoryId: 2,
  repository: "octo/hello",
  pullNumber: 3,
  headSha: "a".repeat(40),
  baseSha: "b".repeat(40),
  baseRef: "main",
  defaultBranch: "main",
  pullUpdatedAt: "2026-01-01T00:00:00Z",
  headFrom: "event",
  deliveryId: "d-1",
  trigger: "pull_request",
  pull: { draft: false, labels: ["no-review"], authorBot: false },
});
const report: PublishedReport = {
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [],
  findings: [],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 1,
  ai: aiReportOff(),
};
const skippedFor = (skipped: SettingsSkipped): JobOutcome => ({ kind: "completed", report: { ...report, skipped } });
type JobOutcome = Parameters<typeof refuseUnfoundedSkip>[1];

describe("refuseUnfoundedSkip", () => {
  it.each<[string, ReviewJob, SettingsSkipped]>([
    ["a label the PR carries", job, { reason: "label", label: "no-review" }],
    ["a draft", { ...job, pull: { draft: true, labels: [], authorBot: false } }, { reason: "draft" }],
    ["an app's PR", { ...job, pull: { draft: false, labels: [], authorBot: true } }, { reason: "bot-author" }],
    ["automatic reviews off", job, { reason: "automatic-review-off" }],
  ])("accepts a skip for %s", (_, sealed, skipped) => {
    expect(() => {
      refuseUnfoundedSkip(sealed, skippedFor(skipped));
    }).not.toThrow();
  });

  it.each<[string, ReviewJob, SettingsSkipped]>([
    ["a label the PR does not carry", job, { reason: "label", label: "other" }],
    ["a draft that is not one", job, { reason: "draft" }],
    ["a person's PR as an app's", job, { reason: "bot-author" }],
    ["a maintainer's explicit request (no pull)", { ...job, trigger: "issue_comment", pull: undefined }, { reason: "automatic-review-off" }],
  ])("refuses a skip for %s", (_, sealed, skipped) => {
    expect(() => {
      refuseUnfoundedSkip(sealed, skippedFor(skipped));
    }).toThrow(expect.objectContaining({ code: "REQUEST_INVALID" }));
  });

  it("leaves a review that was not skipped alone (negative control)", () => {
    expect(() => {
      refuseUnfoundedSkip({ ...job, pull: undefined }, { kind: "completed", report });
    }).not.toThrow();
  });
});
