import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { EvalRun } from "./eval-run.js";
import { matchFindings, type ModelFinding } from "./match-findings.js";
import type { MaterialisedCase } from "./materialise-case.js";
import type { CaseManifest } from "./suite-manifest.js";

/**
 * Scores one AI review of a case. Placed findings count with their side and line range; unplaced
 * ones (the model named a line placement could not anchor) count too, as RIGHT-side findings on
 * the line they named: they are the model's claims, and a noisy model must not escape precision
 * by missing its anchors. Only placed ones count as comments; anchor validity is their share.
 */
export function scoreReview(
  ai: AiReport,
  about: {
    readonly manifest: CaseManifest;
    readonly repetition: number;
    readonly materialised: MaterialisedCase;
    readonly window: number;
    readonly costMicrodollars: number;
    readonly wallMs: number;
  },
): EvalRun {
  const findings: ModelFinding[] = [
    ...ai.findings.map((finding) => ({
      path: finding.path,
      side: finding.side,
      startLine: finding.startLine ?? finding.line,
      line: finding.line,
      placed: true,
    })),
    ...ai.unplaced.map((finding) => ({ path: finding.path, side: "RIGHT" as const, startLine: finding.line, line: finding.line, placed: false })),
  ];
  const pairs = matchFindings(findings, about.manifest.known, { window: about.window, renames: about.materialised.renames });
  return {
    caseId: about.manifest.id,
    kind: about.manifest.kind,
    repetition: about.repetition,
    findings: findings.length,
    placed: ai.findings.length,
    matched: pairs.length,
    known: about.manifest.known.length,
    inputTokens: ai.usage.inputTokens,
    outputTokens: ai.usage.outputTokens,
    costMicrodollars: about.costMicrodollars,
    wallMs: about.wallMs,
    status: ai.status,
  };
}
