import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { SubmitReview } from "../tools/submit-review.js";

/** One chunk's review and the files the model was shown in it. */
export interface ReviewedPart {
  readonly files: readonly string[];
  readonly review: SubmitReview;
}

/**
 * The summary comment's model-written fields of an AI review: the description of the synthesis
 * (several parts) or of the first part that gave one, and the walkthrough rows of every part, each
 * kept only for a file that part showed the model (a model cannot describe a file it never saw,
 * nor list one twice: the first row per path wins). Still model text: escaped where rendered.
 */
export function summaryFields(synthesis: SubmitReview | null, parts: readonly ReviewedPart[]): Pick<AiReport, "description" | "walkthrough"> {
  const description = synthesis?.description ?? parts.find((part) => (part.review.description ?? "") !== "")?.review.description;
  const rows = new Map<string, string>();
  for (const part of parts) {
    const shown = new Set(part.files);
    for (const entry of part.review.walkthrough ?? []) if (shown.has(entry.path) && !rows.has(entry.path)) rows.set(entry.path, entry.change);
  }
  return {
    ...(description === undefined || description === "" ? {} : { description }),
    ...(rows.size === 0 ? {} : { walkthrough: [...rows].map(([path, change]) => ({ path, change })) }),
  };
}
