import type { Severity } from "@reviewbot/contracts/severity";

/** How severe a finding must be to fail the run: `none` never fails it. */
export const FAIL_LEVELS = ["none", "notice", "warning", "error"] as const satisfies readonly ("none" | Severity)[];
export type FailLevel = (typeof FAIL_LEVELS)[number];

const RANK: Readonly<Record<Severity, number>> = { notice: 1, warning: 2, error: 3 };

/**
 * Whether a finding (a helper's, or the model's placed on the diff) reaches `level`: the exit
 * status of `reviewbot review` and of the GitHub Action follows it.
 */
export function failsAt(
  report: { readonly findings: readonly { readonly severity: Severity }[]; readonly ai: { readonly findings: readonly { readonly severity: Severity }[] } },
  level: FailLevel,
): boolean {
  if (level === "none") return false;
  return [...report.findings, ...report.ai.findings].some((finding) => RANK[finding.severity] >= RANK[level]);
}
