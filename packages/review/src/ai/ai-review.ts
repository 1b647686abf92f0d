import { aiReportOff, type AiReport, type AiStatus, type PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { WitnessChain } from "@reviewbot/contracts/model-witness";
import { createHash } from "node:crypto";
import { isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { ChatModel } from "@reviewbot/contracts/chat";
import type { AiReviewInput, AiReviewer } from "./ai-reviewer.js";
import type { AiTool } from "./tools/ai-tool.js";
import { chunkOpening } from "./loop/chunk-opening.js";
import { readCommitMessages } from "./repo/commit-messages.js";
import { runChunkLoop, type ChunkOutcome } from "./loop/chunk-loop.js";
import { estimateTokens } from "./plan/estimate-tokens.js";
import type { FetchedPage } from "@reviewbot/llm/fetch-allowlisted";
import { fetchTool } from "./tools/fetch-tool.js";
import { helperTools } from "./tools/helper-tools.js";
import { placeFindings } from "./placement/place-findings.js";
import { NO_TEXT_CHANGES, planChunks, type Chunk } from "./plan/plan-chunks.js";
import { skipReasonUnder } from "./plan/skip-reason.js";
import { RepoReader } from "./repo/repo-reader.js";
import { readRules } from "./review-rules.js";
import { repoSourceOf } from "./repo/repo-source.js";
import { reviewScope, type ReviewScope } from "./plan/review-scope.js";
import { carryFindings } from "./placement/carry-findings.js";
import { witnessedPrevious } from "./plan/witnessed-previous.js";
import { anchorHash, normaliseLine } from "../findings/anchor-hash.js";
import { REPO_TOOL_NAMES, repoTools } from "./tools/repo-tools.js";
import { pathRuleSection, PROMPT_VERSION, systemPrompt } from "./review-prompt.js";
import { SubmitReview } from "./tools/submit-review.js";
import { summaryFields } from "./summary/summary-fields.js";
import type { LoopLimits } from "./loop/tool-loop.js";
import { newNonce, wrapUntrusted, type UntrustedKind } from "./untrusted-text.js";

/** Where a job's validated chunk results are kept between attempts (the api's cache, or none). */
export interface ChunkCache {
  get(key: string): Promise<unknown>;
  put(key: string, result: unknown): Promise<void>;
}

export interface AiReviewOptions {
  readonly model: ChatModel;
  /** Tokens the job may still spend (the broker's answer, or the CLI's own budget). */
  readonly tokensLeft: () => number;
  readonly contextTokens: number;
  readonly maxOutputTokens: number;
  /** Model calls per chunk (default 12, at most 30). */
  readonly maxTurns?: number;
  /** The wall clock (epoch ms) the review must end by: within the job token's life. */
  readonly deadline: number;
  /** `fetch_url`, when the api offers it for this job. */
  readonly fetchUrl?: (url: string, signal: AbortSignal) => Promise<FetchedPage>;
  readonly cache?: ChunkCache;
  /** The api's last published AI review of this PR: the review covers only what changed since it when it can. */
  readonly previous?: PreviousReview;
  /** Replaces registered secrets in everything sent to the model. */
  readonly scrub: (text: string) => string;
  readonly logger: Logger;
}

/** The last AI review of a PR: its head, its findings there, and what the api's model broker saw of the reviews it rests on. */
export interface PreviousReview {
  readonly headSha: string;
  readonly findings: readonly PlacedAiFinding[];
  readonly witness: WitnessChain;
}

const DEFAULT_TURNS = 12;
const MAX_TURNS = 30;
/** The most characters of one tool answer shown to the model. */
const TOOL_ANSWER_CHARS = 24_000;

/**
 * The AI review: the PR's patch planned into hunk-aligned chunks within the model's
 * context (lockfiles, generated and binary files left out, and said so), one tool loop per chunk
 * with the same system prompt and tools (cached per chunk under the job, config, model and
 * prompt version), a synthesis when there are several, then every finding placed on the diff or
 * listed as not placed. The model's key is not here: `model` is the api's broker (or the CLI's
 * own). A provider that refuses the request, or is down past the model client's retries, ends
 * the AI review as `failed` with the reason in `note`; the helpers' findings are kept either way.
 */
export function createAiReviewer(options: AiReviewOptions): AiReviewer {
  return async (input) => {
    const { checkout } = input;
    const source = repoSourceOf(checkout);
    const nonce = newNonce();
    const wrap = (kind: UntrustedKind, label: string, text: string, maxChars = TOOL_ANSWER_CHARS): string =>
      wrapUntrusted({ kind, label, text, nonce, maxChars, scrub: options.scrub });
    const rules = checkout.overlay.failedClosed ? null : await readRules(checkout.dir);
    const system = systemPrompt({ nonce, rules });
    const tools: AiTool[] = [
      ...repoTools(new RepoReader(source)),
      ...(options.fetchUrl === undefined ? [] : [fetchTool(options.fetchUrl)]),
      ...helperTools(input.helpers, input.runHelper, REPO_TOOL_NAMES),
    ];
    const fixed = estimateTokens(system) + estimateTokens(JSON.stringify(tools.map((tool) => tool.spec))) + options.maxOutputTokens;
    // The last review's head is a worker's word: started from only when the broker's witness bears it out.
    const skip = skipReasonUnder(input.skipRules);
    const since =
      options.previous === undefined ? null : await witnessedPrevious(source, options.previous, (path, patch) => wrap("diff", path, patch, patch.length), skip);
    const scope = await reviewScope(source, checkout.diff, since);
    // Half of what is left for the diff; the other half for tool answers during the loop.
    // Each chunk's per-path rules count in its half, as the system prompt's text they add.
    const pathRules = input.pathRules ?? [];
    const plan = planChunks(scope.patches, {
      maxTokens: Math.max(1000, Math.floor((options.contextTokens - fixed) / 2)),
      skip,
      rules: pathRules.map((rule) => ({ name: rule.name, globs: rule.globs, tokens: estimateTokens(pathRuleSection(rule)) })),
    });
    const signal = input.signal ?? new AbortController().signal;
    const limits: LoopLimits = {
      maxTurns: Math.min(options.maxTurns ?? DEFAULT_TURNS, MAX_TURNS),
      maxOutputTokens: options.maxOutputTokens,
      deadline: options.deadline,
      maxRepeats: 5,
    };
    const configKey = configDigest(rules, input, options.fetchUrl !== undefined, scope.since);
    const commits = await readCommitMessages(source);
    const outcomes: { chunk: Chunk; outcome: ChunkOutcome }[] = [];
    let synthesis: ChunkOutcome | null = null;
    try {
      for (const [index, chunk] of plan.chunks.entries()) {
        const opening = chunkOpening(
          chunk,
          {
            part: index + 1,
            parts: plan.chunks.length,
            since: scope.since,
            commits,
            context: input.context?.text ?? null,
            findings: input.findings,
            ...(input.pullRequest === undefined ? {} : { pullRequest: input.pullRequest }),
          },
          wrap,
        );
        const carried = pathRules.filter((rule) => chunk.rules.includes(rule.name));
        const chunkSystem = carried.length === 0 ? system : systemPrompt({ nonce, rules, pathRules: carried });
        const key = digest([PROMPT_VERSION, options.model.model, configKey, chunk.id, ...carried.flatMap((rule) => [rule.name, ...rule.globs, rule.text])]);
        const cached = await readCached(options.cache, key);
        const outcome =
          cached ?? (await runChunkLoop({ model: options.model, system: chunkSystem, tools, opening, limits, tokensLeft: options.tokensLeft, wrap, signal }));
        if (cached === null && outcome.review !== null && outcome.ended === "submitted")
          await options.cache?.put(key, { review: outcome.review }).catch(() => undefined);
        outcomes.push({ chunk, outcome });
        options.logger.info(
          {
            part: index + 1,
            parts: plan.chunks.length,
            rules: chunk.rules,
            cached: cached !== null,
            ended: outcome.ended,
            turns: outcome.turns,
            ...outcome.usage,
          },
          "ai review chunk done",
        );
      }
      const summaries = outcomes.flatMap(({ outcome }) => (outcome.review === null ? [] : [outcome.review.summary]));
      if (summaries.length > 1) synthesis = await synthesise(summaries, { options, system, tools, limits, wrap, signal });
    } catch (err) {
      if (isAppError(err) && err.code === "LLM_REFUSED")
        return failed(options.model.model, `the model endpoint refused the request: ${options.scrub(err.message)}`, outcomes, plan.skipped, scope);
      // Down past the retries (5xx, 429, timeouts, a stream's error event): the helpers' findings
      // still stand, so the review ends with them and says why the AI part is missing; the api
      // decides from its own broker's record whether to retry the AI part alone.
      if (isAppError(err) && err.code === "LLM_UNAVAILABLE")
        return failed(options.model.model, `the model endpoint is unavailable: ${options.scrub(err.message)}`, outcomes, plan.skipped, scope);
      throw err;
    }
    // Changed code the model did not read (left out by the rules, binary, or a hunk cut to fit a
    // chunk): the review cannot vouch for it, so it is at most partial, whoever chose to skip it.
    const unread =
      plan.skipped.filter(({ reason }) => reason !== NO_TEXT_CHANGES).length +
      plan.chunks.flatMap((chunk) => chunk.files).filter((file) => file.note !== null).length;
    const reviewed = outcomes.filter(({ outcome }) => outcome.review !== null);
    const partSummaries = reviewed.map(({ outcome }) => outcome.review?.summary ?? "");
    // The synthesis's own summary, or the parts' (one part: its summary; a synthesis that gave none: all of them).
    const summary =
      synthesis?.review?.summary ??
      (plan.chunks.length === 0 && unread > 0
        ? "The model read none of the changed files: every one was left out (listed as skipped)."
        : scope.since !== null && plan.chunks.length === 0
          ? `Nothing in the PR's files changed since the last review (${scope.since.slice(0, 7)}).`
          : partSummaries.join("\n\n"));
    const { lineText } = input;
    const placement = await placeFindings(
      reviewed.flatMap(({ outcome }) => outcome.review?.findings ?? []),
      checkout.diff,
      lineText,
    );
    const carried =
      scope.since === null || options.previous === undefined
        ? []
        : await carryFindings(options.previous.findings, { since: scope.since, interdiff: scope.interdiff ?? checkout.diff }, checkout.diff, source, lineText);
    const reviewedPaths = new Set(reviewed.flatMap(({ chunk }) => chunk.files.map((file) => file.path)));
    const unreviewed = outcomes
      .filter(({ outcome }) => outcome.review === null)
      .flatMap(({ chunk, outcome }) => chunk.files.map((file) => ({ path: file.path, reason: `no review (${outcome.ended})` })));
    const status: AiStatus =
      plan.chunks.length > 0 && reviewed.length === 0
        ? "failed"
        : unread > 0 || reviewed.length < plan.chunks.length || outcomes.some(({ outcome }) => outcome.ended !== "submitted")
          ? "partial"
          : "done";
    const placed = placement.placed.map((finding): PlacedAiFinding => ({
      path: finding.path,
      side: finding.side,
      startLine: finding.startLine ?? null,
      line: finding.line,
      severity: finding.severity,
      category: finding.category,
      title: finding.title,
      body: finding.body,
      suggestion: finding.suggestion ?? null,
      anchor: anchorHash(finding.anchorText),
    }));
    return {
      status,
      model: options.model.model,
      since: scope.since,
      summary,
      ...summaryFields(
        synthesis?.review ?? null,
        reviewed.flatMap(({ chunk, outcome }) => (outcome.review === null ? [] : [{ files: chunk.files.map((file) => file.path), review: outcome.review }])),
      ),
      findings: withCarried(carried, placed),
      unplaced: placement.unplaced.map(({ finding, reason }) => ({ path: finding.path, line: finding.line, title: finding.title, reason })),
      usage: totalUsage([...outcomes.map(({ outcome }) => outcome), ...(synthesis === null ? [] : [synthesis])]),
      coverage: {
        files: scope.since === null ? checkout.diff.files.length : scope.patches.length,
        reviewedFiles: reviewedPaths.size,
        skipped: [...plan.skipped, ...unreviewed],
      },
      note:
        status === "failed"
          ? "the model submitted no review for any part of the PR"
          : unread > 0
            ? `the model did not read ${unread} of the changed files or hunks (listed as skipped)`
            : null,
    };
  };
}

interface SynthesisContext {
  readonly options: AiReviewOptions;
  readonly system: string;
  readonly tools: readonly AiTool[];
  readonly limits: LoopLimits;
  readonly wrap: (kind: UntrustedKind, label: string, text: string) => string;
  readonly signal: AbortSignal;
}

/** One call that merges the parts' summaries (model-written from untrusted data: wrapped too) into one. */
async function synthesise(summaries: readonly string[], context: SynthesisContext): Promise<ChunkOutcome> {
  const opening = [
    `You reviewed this pull request in ${summaries.length} parts. These are your summaries of the parts:`,
    ...summaries.map((summary, index) => context.wrap("body", `summary of part ${index + 1}`, summary)),
    "Call submit_review now with one summary and one description of the whole PR and an empty findings list (the parts' findings and walkthroughs are kept).",
  ].join("\n\n");
  return runChunkLoop({
    ...context,
    model: context.options.model,
    opening,
    limits: { ...context.limits, maxTurns: 2 },
    tokensLeft: context.options.tokensLeft,
  });
}

async function readCached(cache: ChunkCache | undefined, key: string): Promise<ChunkOutcome | null> {
  const stored = await cache?.get(key).catch(() => null);
  // As untrusted as a fresh answer: validated the same way.
  const parsed = SubmitReview.safeParse((stored as { review?: unknown } | null | undefined)?.review);
  if (!parsed.success) return null;
  return { review: parsed.data, ended: "submitted", usage: { inputTokens: 0, outputTokens: 0 }, turns: 0, toolCalls: 0 };
}

function configDigest(rules: string | null, input: AiReviewInput, fetch: boolean, since: string | null): string {
  return digest([
    rules ?? "",
    JSON.stringify(input.helpers.map((helper) => [helper.name, helper.command, helper.allowArgs, helper.maxArgs, helper.image.reference])),
    String(fetch),
    since ?? "",
  ]);
}

// The carried findings, then the new ones that do not repeat one of them (same place, same title).
function withCarried(carried: readonly PlacedAiFinding[], placed: readonly PlacedAiFinding[]): PlacedAiFinding[] {
  const key = (finding: PlacedAiFinding) => JSON.stringify([finding.path, finding.side, finding.line, normaliseLine(finding.title).toLowerCase()]);
  const known = new Set(carried.map(key));
  return [...carried, ...placed.filter((finding) => !known.has(key(finding)))];
}

function digest(parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return hash.digest("hex");
}

function totalUsage(outcomes: readonly ChunkOutcome[]): AiReport["usage"] {
  return outcomes.reduce(
    (sum, outcome) => ({
      inputTokens: sum.inputTokens + outcome.usage.inputTokens,
      outputTokens: sum.outputTokens + outcome.usage.outputTokens,
      turns: sum.turns + outcome.turns,
      toolCalls: sum.toolCalls + outcome.toolCalls,
    }),
    { inputTokens: 0, outputTokens: 0, turns: 0, toolCalls: 0 },
  );
}

function failed(
  model: string,
  note: string,
  outcomes: readonly { outcome: ChunkOutcome }[],
  skipped: readonly { path: string; reason: string }[],
  scope: ReviewScope,
): AiReport {
  return {
    ...aiReportOff(note),
    status: "failed",
    model,
    since: scope.since,
    usage: totalUsage(outcomes.map(({ outcome }) => outcome)),
    coverage: { files: scope.patches.length, reviewedFiles: 0, skipped: [...skipped] },
  };
}
