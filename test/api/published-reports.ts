import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { type PublishedReport } from "@reviewbot/contracts/published-report";

/** A report with nothing in it, as a worker would send for a clean PR: what the worker-route suites report. */
export const EMPTY_REPORT: PublishedReport = {
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: "a".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [],
  findings: [],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 5,
  ai: aiReportOff(),
};
