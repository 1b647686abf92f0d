import { lstat, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { priceOf } from "@reviewbot/llm/llm-prices";
import { createModelClient } from "@reviewbot/llm/model-client";
import type { LlmSettings } from "@reviewbot/llm/llm-settings";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { compareResults } from "@reviewbot/review/eval/compare-results";
import { buildEvalResult, EvalResult } from "@reviewbot/review/eval/eval-result";
import { readSuite } from "@reviewbot/review/eval/read-suite";
import { renderEval } from "@reviewbot/review/eval/render-eval";
import { openRunCache } from "@reviewbot/review/eval/run-cache";
import { runSuite } from "@reviewbot/review/eval/run-suite";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { inProcessAiReviewer } from "@reviewbot/review/ai/in-process-ai-reviewer";
import { localModel } from "@reviewbot/review/ai/local-model";
import { createJudge } from "@reviewbot/review/eval/judge-pair";
import type { EvalArgs } from "./eval-command-line.js";
import { evalConfigHash } from "./eval-config-hash.js";

const COMPARE_BYTES = 16 * 1024 * 1024;

export interface EvalDependencies {
  readonly cache: CloneCache;
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  readonly installHooks?: InstallHookRuntime;
  readonly llm: LlmSettings;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
  readonly gitTimeoutMs: number;
  /** Each review's own deadline for starting model calls, from its start. */
  readonly reviewDeadlineMs: number;
  /** REVIEWBOT_EVAL_JUDGE_MODEL: asked whether each window candidate is the known problem. */
  readonly judgeModel?: string;
}

/**
 * `reviewbot eval`: every case of the suite reviewed `--repeat` times by the same pipeline as
 * `reviewbot review` (a fresh AI reviewer, budget and deadline per review), scored against its known
 * findings; progress on stderr; exit 1 when `--compare` finds a gated figure past its threshold.
 */
export async function evalCommand(args: EvalArgs, deps: EvalDependencies): Promise<{ output: string; exitCode: number }> {
  const { llm } = deps;
  if (!llm.enabled) throw new AppError("USAGE", "eval measures the AI review: set REVIEWBOT_LLM_BASE_URL and REVIEWBOT_LLM_MODEL");
  const before = args.compare === undefined ? undefined : await readResult(args.compare);
  const suite = await readSuite(args.suite);
  const configHash = await evalConfigHash(llm, args.window, deps.judgeModel ?? null);
  const { judgeModel } = deps;
  // The judge goes through the same client and in-memory budget code as the reviewer, with a budget of its own per review.
  const judgeClient =
    judgeModel === undefined ? undefined : createModelClient({ protocol: llm.protocol, baseUrl: llm.baseUrl, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs });
  const workDir = await mkdtemp(join(tmpdir(), "reviewbot-eval-"));
  try {
    const home = join(workDir, "home");
    await mkdir(home);
    const runs = await runSuite(suite, {
      review: async (remote, manifest) => {
        const ai = inProcessAiReviewer(llm, { scrubber: deps.scrubber, logger: deps.logger, deadline: Date.now() + deps.reviewDeadlineMs });
        const report = await reviewPullRequest(
          {
            remote,
            base: { ref: "base" },
            head: { ref: "head" },
            label: "eval",
            filterMode: "added",
            pullRequest: { title: manifest.title, ...(manifest.body === undefined ? {} : { body: manifest.body }) },
          },
          { ...deps, secrets: [], ...(ai === undefined ? {} : { ai }) },
        );
        return report.ai;
      },
      costOf: (ai) => priceOf(ai.usage, llm.model, llm.prices),
      ...(judgeModel === undefined || judgeClient === undefined
        ? {}
        : {
            judge: {
              create: () => createJudge(localModel(judgeClient, { ...llm, model: judgeModel }), (text) => deps.scrubber.scrub(text)),
              costOf: (usage) => priceOf(usage, judgeModel, llm.prices),
            },
          }),
      git: {
        cwd: workDir,
        home,
        path: process.env.PATH ?? "/usr/bin:/bin",
        allowedProtocols: ["https", "file"],
        timeoutMs: deps.gitTimeoutMs,
        scrubber: deps.scrubber,
      },
      workDir,
      cache: openRunCache(args.cacheDir ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "reviewbot", "eval"), configHash),
      window: args.window,
      repeat: args.repeat,
      progress: (line) => process.stderr.write(`reviewbot eval: ${line}\n`),
    });
    const result = buildEvalResult(runs, { suite: suite.manifest.name, model: llm.model, configHash, window: args.window, repeat: args.repeat });
    if (before === undefined) return { output: renderEval(result, args.format), exitCode: 0 };
    const differences = compareResults(before, result, args.thresholds);
    return { output: renderEval(result, args.format, { before, differences }), exitCode: differences.some((entry) => entry.failure !== null) ? 1 : 0 };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function readResult(path: string): Promise<EvalResult> {
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isFile() || info.size > COMPARE_BYTES)
    throw new AppError("USAGE", `--compare ${path}: not a readable result file of at most ${COMPARE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch {
    throw new AppError("USAGE", `--compare ${path}: not JSON`);
  }
  const parsed = EvalResult.safeParse(json);
  if (!parsed.success) throw new AppError("USAGE", `--compare ${path}: not a reviewbot eval result (${parsed.error.issues[0]?.path.join(".") ?? ""})`);
  return parsed.data;
}
