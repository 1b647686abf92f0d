import type { FindingSeverity } from "../findings/finding.js";
import type { FINDING_CATEGORIES } from "./submit-review.js";

export type AiStatus = "off" | "done" | "partial" | "failed";

/** A model-written finding placed on a line of the diff. */
export interface PlacedAiFinding {
  readonly path: string;
  readonly side: "RIGHT" | "LEFT";
  readonly startLine: number | null;
  readonly line: number;
  readonly severity: FindingSeverity;
  readonly category: (typeof FINDING_CATEGORIES)[number];
  readonly title: string;
  readonly body: string;
  readonly suggestion: string | null;
  /** The anchor of its line (see `anchorHash`): the text the model quoted, which placement matched. */
  readonly anchor: string;
}

/** A finding the model made that could not be placed, and why (listed in the summary, never posted inline). */
export interface UnplacedAiFinding {
  readonly path: string;
  readonly line: number;
  readonly title: string;
  readonly reason: string;
}

/**
 * What the AI review produced. `partial`: a budget ended it early or some chunks gave no review
 * (`coverage` says what was reviewed); `failed`: `note` says why; `off`: no model configured.
 */
export interface AiReport {
  readonly status: AiStatus;
  readonly model: string | null;
  /** The head of the previous review when this one reviewed only what changed since it; null for the whole PR. */
  readonly since: string | null;
  readonly summary: string;
  readonly findings: readonly PlacedAiFinding[];
  readonly unplaced: readonly UnplacedAiFinding[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly turns: number; readonly toolCalls: number };
  readonly coverage: {
    readonly files: number;
    readonly reviewedFiles: number;
    readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  };
  readonly note: string | null;
}

/** The report of a review that ran no model. */
export function aiOff(note: string | null = null): AiReport {
  return {
    status: "off",
    model: null,
    since: null,
    summary: "",
    findings: [],
    unplaced: [],
    usage: { inputTokens: 0, outputTokens: 0, turns: 0, toolCalls: 0 },
    coverage: { files: 0, reviewedFiles: 0, skipped: [] },
    note,
  };
}
