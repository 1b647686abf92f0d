import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { AiSkipRules } from "@reviewbot/policy/ai-skip-rules";
import type { PathRule } from "@reviewbot/policy/path-rules";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import type { Finding } from "../findings/finding.js";
import type { ContextReport, HelperReport } from "../pipeline/report.js";
import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { LineText } from "./placement/place-findings.js";

/** What the AI review of one checkout gets from the pipeline. */
export interface AiReviewInput {
  /** The checkout, held while the review runs: its git objects are what the model's tools read. */
  readonly checkout: Checkout;
  /**
   * The checkout's lines by side (`blobLines`): placement and carrying check anchors with them, and
   * the pipeline anchors the helpers' findings with the same reads.
   */
  readonly lineText: LineText;
  /** The trusted commit's `aiSkip` and `aiMustRead` (`.ai/review-config.json`): which changed files the model is not shown. */
  readonly skipRules: AiSkipRules;
  /** The trusted commit's `.ai/rules/*.md` that passed (loadPathRules): each given only to the chunks holding a file it matches. */
  readonly pathRules?: readonly PathRule[];
  /** The trusted commit's helpers, offered to the model as tools. */
  readonly helpers: readonly ResolvedHelper[];
  /** Runs one helper with the model's arguments, in a fresh sandbox as the pipeline runs them. */
  readonly runHelper: (helper: ResolvedHelper, args: readonly unknown[]) => Promise<HelperReport>;
  readonly context: ContextReport | null;
  /** The helpers' findings on the diff, shown to the model as untrusted data. */
  readonly findings: readonly Finding[];
  readonly pullRequest?: { readonly number?: number; readonly title?: string; readonly body?: string };
  readonly signal?: AbortSignal;
}

/** The AI review, as the worker (through the api's broker) or the CLI (its own broker) assembles it. */
export type AiReviewer = (input: AiReviewInput) => Promise<AiReport>;
