import { SUBMIT_REVIEW, type SubmitReview } from "../tools/submit-review.js";
import { runToolLoop, type LoopOutcome, type ToolLoopInput } from "./tool-loop.js";

export interface ChunkOutcome extends Omit<LoopOutcome<SubmitReview>, "result"> {
  /** The model's validated `submit_review`, or null when it never made a valid one. */
  readonly review: SubmitReview | null;
}

/** One chunk's review: {@link runToolLoop} ended by `submit_review`. */
export async function runChunkLoop(input: ToolLoopInput): Promise<ChunkOutcome> {
  const { result, ...outcome } = await runToolLoop(input, SUBMIT_REVIEW);
  return { ...outcome, review: result };
}
