import { z } from "zod";

/**
 * The levels a finding is reported at, most severe first (`Severity.options` keeps the order):
 * GitHub's annotation levels `failure`, `warning` and `notice` (SARIF's `error`, `warning`, `note`).
 */
export const Severity = z.enum(["error", "warning", "notice"]);
export type Severity = z.infer<typeof Severity>;
