import type { TokenUsage } from "@reviewbot/contracts/chat";
import type { EvalJudgement } from "./eval-run.js";
import type { Judge } from "./judge-pair.js";
import { maximumMatching, windowCandidates, type Matching, type MatchOptions, type ModelFinding } from "./match-findings.js";
import type { KnownFinding } from "./suite-manifest.js";

export interface JudgedMatching {
  readonly pairs: Matching;
  readonly judgements: readonly EvalJudgement[];
  readonly usage: TokenUsage;
}

/**
 * The window candidates, each judged when a judge is given (one call per finding × known pair that
 * passes file, side and window; nothing else is judged), then a maximum one-to-one matching over the
 * pairs the judge called the same problem. Without a judge every window candidate stays.
 */
export async function judgedMatching(
  findings: readonly (ModelFinding & { readonly title: string; readonly body: string })[],
  known: readonly KnownFinding[],
  options: MatchOptions & { readonly judge?: Judge },
): Promise<JudgedMatching> {
  const candidates = windowCandidates(findings, known, options);
  const { judge } = options;
  if (judge === undefined) return { pairs: maximumMatching(candidates, known.length), judgements: [], usage: { inputTokens: 0, outputTokens: 0 } };
  const judgements: EvalJudgement[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  const kept: number[][] = [];
  for (const [findingIndex, targets] of candidates.entries()) {
    const same: number[] = [];
    for (const knownIndex of targets) {
      const finding = findings[findingIndex];
      const target = known[knownIndex];
      if (finding === undefined || target === undefined) continue;
      const outcome = await judge(target, finding);
      usage.inputTokens += outcome.usage.inputTokens;
      usage.outputTokens += outcome.usage.outputTokens;
      judgements.push({ finding: findingIndex, known: knownIndex, promptHash: outcome.promptHash, verdict: outcome.verdict, answer: outcome.answer });
      if (outcome.verdict === "same") same.push(knownIndex);
    }
    kept.push(same);
  }
  return { pairs: maximumMatching(kept, known.length), judgements, usage };
}
