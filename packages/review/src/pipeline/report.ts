import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { HelperOutcome } from "@reviewbot/contracts/helper-outcome";
import type { ConfigError } from "@reviewbot/policy/config-error";
import type { Severity } from "@reviewbot/contracts/severity";
import type { SettingsSkipped } from "@reviewbot/contracts/published-report";
import type { LineRange } from "@reviewbot/overlay/pull-diff";
import type { ConfigCommit, OverlaySource } from "@reviewbot/overlay/trusted-overlay";
import type { EngineName } from "@reviewbot/core/engine-names";
import type { FilterMode } from "../findings/diff-filter.js";
import type { Finding } from "../findings/finding.js";
import type { AnchoredFinding } from "./anchor-findings.js";

/** What happened to a helper's install hook (see docs/review.md, "Install hooks"). */
export interface InstallReport {
  /**
   * `cached`: an earlier install of the same hook was reused, nothing ran; `installed`: it ran in
   * its own sandbox and succeeded; `failed`: it ran and failed (the helper did not run); `not-run`:
   * disabled or impossible on this worker (the helper ran without it; `problems` says why).
   */
  readonly status: "cached" | "installed" | "failed" | "not-run";
  readonly durationMs: number;
}

export interface HelperReport {
  readonly name: string;
  readonly image: string;
  readonly engine: EngineName;
  readonly sandboxed: boolean;
  readonly outcome: HelperOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly oomKilled: boolean;
  readonly outputTruncated: boolean;
  readonly durationMs: number;
  /** Sanitised and capped: helper output is untrusted. */
  readonly stdout: string;
  readonly stderr: string;
  /** Findings on repository paths, before the diff filter. */
  readonly findings: readonly Finding[];
  /** Output the parser could not use, and findings whose path left the repository. */
  readonly problems: readonly string[];
  /**
   * Why the helper's verdict is incomplete, when the pipeline knows more than the outcome says: a
   * program not in its image, output not parsed within the operator's budget or refused, findings
   * past a cap. Listed in the review's `errors`.
   */
  readonly error?: string;
  /** Its install hook, or null when it has none. */
  readonly install: InstallReport | null;
}

export interface ContextReport {
  /** Sanitised text the context script printed (its `context` field when it printed JSON). */
  readonly text: string;
  readonly skipFiles: readonly string[];
  readonly outcome: HelperOutcome;
  readonly durationMs: number;
  /** Why it did not pass, when known better than its outcome (a program not in the image), else null. */
  readonly error: string | null;
}

export interface ReviewTimings {
  readonly checkoutMs: number;
  readonly contextMs: number;
  readonly helpersMs: number;
  readonly findingsMs: number;
  readonly aiMs: number;
  readonly totalMs: number;
}

export interface Report {
  readonly repo: string;
  readonly base: { readonly ref: string; readonly sha: string };
  readonly head: { readonly ref: string; readonly sha: string };
  readonly engine: EngineName;
  readonly sandboxed: boolean;
  readonly overlay: {
    readonly source: OverlaySource;
    readonly failedClosed: boolean;
    readonly reason: string | null;
    /** The commit `.ai/` came from (the default branch's head, or the base), null when none was fetched. */
    readonly commit: ConfigCommit | null;
    /** Files the PR changed under `.ai/`: never used, shown so the attempt is visible. */
    readonly ignoredPrChanges: readonly string[];
  };
  readonly context: ContextReport | null;
  readonly config: {
    readonly errors: readonly ConfigError[];
    /** The maintainers' `minInlineSeverity`: less severe findings stay out of the PR review's comments. */
    readonly minInlineSeverity: Severity;
  };
  /** Why the maintainers' settings skipped this automatic review (nothing ran), or null. */
  readonly skipped: SettingsSkipped | null;
  readonly helpers: readonly HelperReport[];
  /** Findings on the PR's diff, by the filter mode, with the anchors of those on the diff's hunks. */
  readonly findings: readonly AnchoredFinding[];
  readonly filtered: { readonly mode: FilterMode; readonly dropped: number; readonly skippedByContext: number };
  readonly errors: readonly string[];
  /**
   * Head-side hunk extents of each file that has a kept finding, so a publisher can check review
   * comments against the diff without fetching it again.
   */
  readonly hunks: Readonly<Record<string, readonly LineRange[]>>;
  readonly timings: ReviewTimings;
  /** The AI review (status `off` when no model is configured). */
  readonly ai: AiReport;
}
