/** The pipeline's stages, in order, as a progress display (the CLI, the queue dashboard) shows them. */
export type ReviewStage = "checkout" | "context" | "helpers" | "findings" | "ai";

/** One progress update: the stage, a line for people, and how many helpers are done. */
export interface ReviewProgress {
  readonly stage: ReviewStage;
  readonly message: string;
  readonly helpersDone?: number;
  readonly helpersTotal?: number;
}
