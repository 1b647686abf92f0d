import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { TokenUsage } from "@reviewbot/contracts/chat";
import type { GitContext } from "@reviewbot/overlay/run-git";
import type { EvalRun } from "./eval-run.js";
import type { Judge } from "./judge-pair.js";
import { materialiseCase, type MaterialisedCase } from "./materialise-case.js";
import type { Suite } from "./read-suite.js";
import type { RunCache } from "./run-cache.js";
import { scoreReview } from "./score-review.js";
import type { CaseManifest } from "./suite-manifest.js";

export interface SuiteRunDependencies {
  /** One review of the repository at `remote` (`refs/heads/base` → `refs/heads/head`), with a fresh model budget. */
  readonly review: (remote: string, manifest: CaseManifest) => Promise<AiReport>;
  /** What a review's tokens cost, in microdollars. */
  readonly costOf: (ai: AiReport) => number;
  /** The judge model, when one is configured: a fresh judge (and budget) per review, and what its tokens cost. */
  readonly judge?: { readonly create: () => Judge; readonly costOf: (usage: TokenUsage) => number };
  readonly git: GitContext;
  /** A directory of ours where the cases' repositories are made. */
  readonly workDir: string;
  readonly cache: RunCache;
  readonly window: number;
  readonly repeat: number;
  /** One line of progress (the CLI writes it to stderr). */
  readonly progress: (line: string) => void;
}

/**
 * Reviews every case `repeat` times, in the suite's order, and scores each review; a review already
 * in the cache is reused, a failed AI review (or a failed judge call) is scored but not cached (a rerun tries it again). A
 * case's repository is made only when one of its reviews has to run.
 */
export async function runSuite(suite: Suite, deps: SuiteRunDependencies): Promise<EvalRun[]> {
  const runs: EvalRun[] = [];
  const total = suite.cases.length * deps.repeat;
  for (const suiteCase of suite.cases) {
    let materialised: MaterialisedCase | undefined;
    for (let repetition = 0; repetition < deps.repeat; repetition += 1) {
      const step = `[${runs.length + 1}/${total}] ${suiteCase.manifest.id} #${repetition + 1}`;
      const cached = await deps.cache.get(suiteCase.contentHash, repetition);
      if (cached !== undefined) {
        deps.progress(`${step}: cached`);
        runs.push(cached);
        continue;
      }
      materialised ??= await materialiseCase(suiteCase, await mkdtemp(join(deps.workDir, "case-")), deps.git);
      const started = performance.now();
      const ai = await deps.review(materialised.gitDir, suiteCase.manifest);
      const run = await scoreReview(ai, {
        manifest: suiteCase.manifest,
        repetition,
        materialised,
        window: deps.window,
        costMicrodollars: deps.costOf(ai),
        wallMs: Math.round(performance.now() - started),
        ...(deps.judge === undefined ? {} : { judge: { judge: deps.judge.create(), costOf: deps.judge.costOf } }),
      });
      if (run.status !== "failed" && !run.judgements.some((judgement) => judgement.verdict === "failed")) await deps.cache.put(suiteCase.contentHash, run);
      deps.progress(`${step}: ${run.status}, ${run.findings} findings, ${run.matched}/${run.known} known matched, ${run.wallMs} ms`);
      runs.push(run);
    }
  }
  return runs;
}
