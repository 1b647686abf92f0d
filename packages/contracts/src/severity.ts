import { z } from "zod";

/**
 * The levels a finding is reported at, most severe first (`Severity.options` keeps the order):
 * GitHub's annotation levels `failure`, `warning` and `notice` (SARIF's `error`, `warning`, `note`).
 */
export const Severity = z.enum(["error", "warning", "notice"]);
export type Severity = z.infer<typeof Severity>;

/** Whether `severity` is `min` or more severe. */
export function isAtLeast(severity: Severity, min: Severity): boolean {
  return Severity.options.indexOf(severity) <= Severity.options.indexOf(min);
}

/** The more severe of two levels: a floor the other may raise but not lower. */
export function stricterOf(a: Severity, b: Severity): Severity {
  return isAtLeast(a, b) ? a : b;
}
