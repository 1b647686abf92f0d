import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { EvalRun } from "./eval-run.js";
import type { TokenUsage } from "@reviewbot/contracts/chat";
import { judgedMatching } from "./judged-matching.js";
import type { Judge } from "./judge-pair.js";
import type { MaterialisedCase } from "./materialise-case.js";
import type { CaseManifest } from "./suite-manifest.js";

/**
 * Scores one AI review of a case. Placed findings count with their side and line range; unplaced
 * ones (the model named a line placement could not anchor) count too, as RIGHT-side findings on
 * the line they named: they are the model's claims, and a noisy model must not escape precision
 * by missing its anchors. Only placed ones count as comments; anchor validity is their share.
 * With a judge, a window candidate only matches when the judge calls it the same problem; the
 * judge's tokens and cost are added to the review's.
 */
export async function scoreReview(
  ai: AiReport,
  about: {
    readonly manifest: CaseManifest;
    readonly repetition: number;
    readonly materialised: MaterialisedCase;
    readonly window: number;
    readonly costMicrodollars: number;
    readonly wallMs: number;
    readonly judge?: { readonly judge: Judge; readonly costOf: (usage: TokenUsage) => number };
  },
): Promise<EvalRun> {
  const findings = [
    ...ai.findings.map((finding) => ({
      path: finding.path,
      side: finding.side,
      startLine: finding.startLine ?? finding.line,
      line: finding.line,
      placed: true,
      title: finding.title,
      body: finding.body,
    })),
    ...ai.unplaced.map((finding) => ({
      path: finding.path,
      side: "RIGHT" as const,
      startLine: finding.line,
      line: finding.line,
      placed: false,
      title: finding.title,
      body: "",
    })),
  ];
  const { judge } = about;
  const { pairs, judgements, usage } = await judgedMatching(findings, about.manifest.known, {
    window: about.window,
    renames: about.materialised.renames,
    ...(judge === undefined ? {} : { judge: judge.judge }),
  });
  return {
    caseId: about.manifest.id,
    kind: about.manifest.kind,
    repetition: about.repetition,
    findings: findings.length,
    placed: ai.findings.length,
    matched: pairs.length,
    known: about.manifest.known.length,
    inputTokens: ai.usage.inputTokens + usage.inputTokens,
    outputTokens: ai.usage.outputTokens + usage.outputTokens,
    costMicrodollars: about.costMicrodollars + (judge === undefined ? 0 : judge.costOf(usage)),
    wallMs: about.wallMs,
    status: ai.status,
    judgements: [...judgements],
  };
}
