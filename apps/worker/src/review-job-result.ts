/** How a review job ended when it did not throw: what the BullMQ processor returns (the job's return value). */
export type ReviewJobResult =
  | { readonly outcome: "completed"; readonly findings: number }
  | { readonly outcome: "answered" }
  | { readonly outcome: "skipped" }
  | { readonly outcome: "superseded" }
  | { readonly outcome: "cancelled" };
