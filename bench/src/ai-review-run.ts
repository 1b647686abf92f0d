import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { createModelClient } from "@reviewbot/llm/model-client";
import type { ModelProtocol, ModelStandIn, ModelStandInRequest, Script } from "@reviewbot/llm/testing/model-stand-in";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { AiReport } from "@reviewbot/contracts/ai-report";
import { diffPieceDigests, type WitnessLink } from "@reviewbot/contracts/model-witness";
import { createAiReviewer, type PreviousReview } from "@reviewbot/review/ai/ai-review";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";

/** A PR in a local repository: `fork` against `main`, `.ai/` trusted from `config`. */
export interface BenchPr {
  readonly remote: string;
  readonly config: string;
}

export interface AiRunOptions {
  readonly cache: CloneCache;
  readonly standIn: ModelStandIn;
  readonly protocol: ModelProtocol;
  readonly script: Script;
  /** The model's context: a small one makes the planner cut the PR into several chunks. */
  readonly contextTokens: number;
  /** The last review of the PR, for a review of what changed since it. */
  readonly previous?: PreviousReview;
}

export interface AiRun {
  readonly report: AiReport;
  /** The head the review was of. */
  readonly headSha: string;
  /** Wall time of the pipeline's AI stage: the reviewer's call, from the checkout it is handed to its report. */
  readonly aiMs: number;
  /** The stand-in's own time answering this run's model calls (same process, no added latency). */
  readonly standInMs: number;
  readonly requests: readonly ModelStandInRequest[];
  /** What the api's model broker would have witnessed of this review (of the whole PR, or from `previous`). */
  readonly witness: WitnessLink;
}

const logger = createLogger({ level: "silent", scrubber: new SecretScrubber() });
const operator = parseOperatorPolicy({});

/**
 * One review of `pr` through the real pipeline, clone cache and AI reviewer, the model client
 * talking to the stand-in. The config ref carries no helper or context script, so the `none`
 * engine is never asked to run anything; a run that did would not measure the AI review, and throws.
 */
export async function runAiReview(pr: BenchPr, options: AiRunOptions): Promise<AiRun> {
  const { standIn, protocol } = options;
  standIn.script(options.script);
  const first = standIn.requests.length;
  const client = createModelClient({ protocol, baseUrl: standIn.url(protocol), apiKey: "", timeoutMs: 30_000, attempts: 1 });
  const shown = new Set<string>();
  const reviewer = createAiReviewer({
    model: {
      model: "stand-in",
      complete: (request, signal) => {
        // The broker's account of the diff shown, as apps/api/src/broker/job-witness.ts keeps it.
        for (const message of request.messages) if (message.role === "user") for (const piece of diffPieceDigests(message.content)) shown.add(piece);
        return client.complete(request, signal);
      },
    },
    tokensLeft: () => 100_000_000,
    contextTokens: options.contextTokens,
    maxOutputTokens: 4096,
    maxTurns: 30,
    deadline: Date.now() + 600_000,
    scrub: (text) => text,
    logger,
    ...(options.previous === undefined ? {} : { previous: options.previous }),
  });
  let aiMs = Number.NaN;
  const report = await reviewPullRequest(
    { remote: pr.remote, head: { ref: "fork" }, base: { ref: "main" }, config: { ref: pr.config }, filterMode: "added" },
    {
      cache: options.cache,
      engine: new NoneEngine(),
      operator,
      logger,
      secrets: [],
      ai: async (input) => {
        const start = performance.now();
        try {
          return await reviewer(input);
        } finally {
          aiMs = performance.now() - start;
        }
      },
    },
  );
  if (report.helpers.length > 0 || report.context !== null) throw new Error("the benchmark's review ran a helper or a context script");
  if (report.ai.status !== "done") throw new Error(`the AI review ended ${report.ai.status}: ${report.ai.note ?? ""}`);
  const requests = standIn.requests.slice(first);
  const witness = { headSha: report.head.sha, since: report.ai.since, baseSha: report.base.sha, diffs: [...shown].sort() };
  return { report: report.ai, headSha: report.head.sha, aiMs, standInMs: requests.reduce((sum, request) => sum + request.handledMs, 0), requests, witness };
}
