import type { Logger } from "@reviewbot/core/logger";
import type { CheckoutRequest, CloneCache } from "@reviewbot/overlay/clone-cache";
import { helperCeilings } from "@reviewbot/policy/limit-narrowing";
import { buildHelperArgv } from "@reviewbot/policy/runtime-args";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { automaticReviewSkip, type AutomaticReviewOf } from "@reviewbot/policy/review-settings";
import { blobLines } from "../ai/placement/blob-lines.js";
import { repoSourceOf } from "../ai/repo/repo-source.js";
import { anchorFindings } from "./anchor-findings.js";
import type { AiReviewer } from "../ai/ai-reviewer.js";
import { filterFindings, type FilterMode } from "../findings/diff-filter.js";
import type { Finding } from "../findings/finding.js";
import { capReviewFindings } from "./cap-review-findings.js";
import { loadPathRules } from "./load-path-rules.js";
import { loadRepoConfig } from "./load-repo-config.js";
import type { ContextReport, HelperReport, Report } from "./report.js";
import { runContextScript } from "./run-context-script.js";
import { runHelper } from "./run-helper.js";
import type { InstallHookRuntime } from "./install-hook-runtime.js";
import { isInfrastructureOutcome } from "./helper-output.js";
import { runLimited } from "./run-limited.js";
import type { ReviewProgress } from "./review-progress.js";

export interface ReviewRequest extends CheckoutRequest {
  readonly filterMode: FilterMode;
  /** PR metadata handed to the context script (title, body, number), untrusted. */
  readonly pullRequest?: { readonly number?: number; readonly title?: string; readonly body?: string };
  /**
   * Cancels the review (the PR got a newer head): the sandbox in flight is killed, no further
   * stage or helper starts, the checkout is released and the review rejects with `signal.reason`
   * (an `AbortError` DOMException unless the caller gave another reason).
   */
  readonly signal?: AbortSignal;
  /**
   * The AI review alone (the fleet's retry after the model endpoint was down, whose helpers'
   * results are already published): no context script and no helper runs; the report has no
   * helper and no finding, and the model is not shown the helpers' findings.
   */
  readonly aiOnly?: boolean;
  /**
   * The PR as the api saw it when it started an automatic review (opened, pushed): the trusted
   * settings may skip it (a draft, a skip label, a bot's PR, automatic reviews off), and then nothing
   * runs. Absent for a maintainer's explicit request, which the settings never skip.
   */
  readonly automatic?: AutomaticReviewOf;
  /**
   * Findings from outside the helpers, already on repository paths and sanitised (the code
   * scanners' SARIF files the action reads, its `sarif-input`): skipped, filtered to the diff,
   * anchored and shown to the model like the helpers'. They run nothing, so they are kept under
   * `aiOnly` too; a review the settings skip drops them with everything else.
   */
  readonly scanned?: readonly Finding[];
}

export interface ReviewDependencies {
  readonly cache: CloneCache;
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  readonly logger: Logger;
  /** Secret values (tokens) scrubbed from everything the report keeps. */
  readonly secrets: readonly string[];
  /** Told as each stage starts and each helper ends, for a progress display. */
  readonly onProgress?: (update: ReviewProgress) => void;
  /**
   * The registry proxy and deps cache, when the operator's `installHooks` is `registry` and the
   * engine accepts mounts; without it install hooks are not run (fail closed).
   */
  readonly installHooks?: InstallHookRuntime;
  /** The AI review, when a model is configured; without it the report says the AI review is off. */
  readonly ai?: AiReviewer;
}

/**
 * The review pipeline (docs/architecture.md, data-flow steps 2–7): trusted checkout, the trusted
 * `.ai/` config, the context script and every helper each in its own sandbox (in parallel up to the
 * operator's concurrency), findings parsed, mapped to repository paths, sanitised and filtered to
 * the PR's diff, then the AI review (step 6) while the checkout's objects are still held.
 */
export async function reviewPullRequest(request: ReviewRequest, deps: ReviewDependencies): Promise<Report> {
  const started = performance.now();
  const progress = deps.onProgress ?? (() => undefined);
  const { signal } = request;
  signal?.throwIfAborted();
  progress({ stage: "checkout", message: `fetching ${request.head.ref} and ${request.base.ref}` });
  const checkout = await deps.cache.checkout(request);
  const checkedOut = performance.now();
  try {
    signal?.throwIfAborted();
    // The head is bound once: by the caller that pinned its SHA (a worker's job logger), else here.
    const logger = deps.logger.child(request.head.sha === undefined ? { checkoutId: checkout.id, headSha: checkout.headSha } : { checkoutId: checkout.id });
    const config = await loadRepoConfig(checkout, deps.operator);
    // A failed-closed overlay is reported once, by loadRepoConfig; it has no rules.
    const pathRules = checkout.overlay.failedClosed ? { rules: [], errors: [] } : await loadPathRules(checkout.dir);
    const labels = { jobId: request.label ?? checkout.id };
    const install = { mode: deps.operator.installHooks, remote: request.remote, ...(deps.installHooks === undefined ? {} : { runtime: deps.installHooks }) };
    const { operator } = deps;
    const run = { engine: deps.engine, worktree: checkout.dir, labels, secrets: deps.secrets, install, operator, ...(signal === undefined ? {} : { signal }) };
    const image = { name: operator.defaultImage, reference: operator.images[operator.defaultImage] ?? "" };
    const settingsSkip = request.automatic === undefined ? null : automaticReviewSkip(config.settings, request.automatic);
    if (settingsSkip !== null) logger.info({ skipped: settingsSkip }, "review skipped by the repository's settings");
    const aiOnly = request.aiOnly === true;
    const helpersRun = !aiOnly && settingsSkip === null;
    progress({ stage: "context", message: helpersRun ? "running the context script, if the base has one" : "no context script" });
    const context = !helpersRun
      ? null
      : await runContextScript(
          { ...run, image, limits: helperCeilings(deps.operator.limits) },
          {
            base: { ref: request.base.ref, sha: checkout.baseSha },
            head: { ref: request.head.ref, sha: checkout.headSha },
            files: checkout.diff.files.map(({ path, previousPath, status }) => ({ path, previousPath, status })),
            ...request.pullRequest,
          },
        );
    signal?.throwIfAborted();
    const contextDone = performance.now();
    const toRun = helpersRun ? config.helpers : [];
    const helpersTotal = toRun.length;
    let helpersDone = 0;
    progress({ stage: "helpers", message: `running ${helpersTotal} helper(s) in ${deps.engine.name} sandboxes`, helpersDone, helpersTotal });
    const ran = await runLimited(toRun, deps.operator.limits.concurrency, async (helper) => {
      // No new helper once cancelled; the ones in flight are killed through the signal.
      signal?.throwIfAborted();
      const report = await runHelper(helper, run);
      helpersDone += 1;
      progress({ stage: "helpers", message: `${report.name}: ${report.outcome} (${report.durationMs} ms)`, helpersDone, helpersTotal });
      return report;
    });
    signal?.throwIfAborted();
    const helpers = capReviewFindings(ran, operator.findings);
    const helpersFinished = performance.now();
    progress({ stage: "findings", message: "parsing and filtering findings" });
    const skipped = new Set(context?.skipFiles ?? []);
    const candidates = [...helpers.flatMap((helper) => helper.findings), ...(settingsSkip === null ? (request.scanned ?? []) : [])];
    const unskipped = candidates.filter((finding) => !skipped.has(finding.path));
    const filtered = filterFindings(unskipped, checkout.diff, request.filterMode);
    const findingsDone = performance.now();
    // One reader of the checkout's lines for the AI review's anchors and the helper findings'.
    const lineText = blobLines(repoSourceOf(checkout), checkout.diff);
    let ai = aiReportOff(settingsSkip === null ? "no model is configured" : "the review was skipped by the repository's settings");
    if (deps.ai !== undefined && settingsSkip === null) {
      progress({ stage: "ai", message: "running the AI review" });
      ai = await deps.ai({
        checkout,
        lineText,
        skipRules: config.settings.aiSkip,
        pathRules: pathRules.rules,
        helpers: config.helpers,
        runHelper: (helper, args) => runHelper({ ...helper, command: buildHelperArgv(helper, args) }, run),
        context,
        findings: filtered.kept,
        ...(request.pullRequest === undefined ? {} : { pullRequest: request.pullRequest }),
        ...(signal === undefined ? {} : { signal }),
      });
      signal?.throwIfAborted();
    }
    const finished = performance.now();
    logger.info({ helpers: helpers.length, findings: filtered.kept.length, dropped: filtered.dropped, ai: ai.status }, "review finished");
    return {
      repo: request.remote,
      base: { ref: request.base.ref, sha: checkout.baseSha },
      head: { ref: request.head.ref, sha: checkout.headSha },
      engine: deps.engine.name,
      sandboxed: deps.engine.sandboxed,
      overlay: {
        source: checkout.overlay.source,
        failedClosed: checkout.overlay.failedClosed,
        reason: checkout.overlay.reason ?? null,
        commit: checkout.overlay.commit,
        ignoredPrChanges: checkout.diff.files.map((file) => file.path).filter((path) => path.startsWith(".ai/")),
      },
      context,
      config: { errors: [...config.errors, ...pathRules.errors], minInlineSeverity: config.settings.minInlineSeverity },
      skipped: settingsSkip,
      helpers,
      findings: await anchorFindings(filtered.kept, checkout.diff, lineText),
      filtered: { mode: filtered.mode, dropped: filtered.dropped, skippedByContext: candidates.length - unskipped.length },
      errors: reviewErrors(checkout.overlay.reason, context, helpers),
      hunks: Object.fromEntries(
        checkout.diff.files.filter((file) => filtered.kept.some((finding) => finding.path === file.path)).map((file) => [file.path, file.hunks]),
      ),
      timings: {
        checkoutMs: Math.round(checkedOut - started),
        contextMs: Math.round(contextDone - checkedOut),
        helpersMs: Math.round(helpersFinished - contextDone),
        findingsMs: Math.round(findingsDone - helpersFinished),
        aiMs: Math.round(finished - findingsDone),
        totalMs: Math.round(finished - started),
      },
      ai,
    };
  } finally {
    await checkout.release();
  }
}

/**
 * Infrastructure failures, one line each, apart from what the helpers found: a helper's
 * infrastructure outcome, then what the pipeline knows of it (`flood: truncated: 120 findings past
 * the cap…`), or its error alone (`ruff: program \`ruff\` is not in image…`), or a non-zero exit.
 */
function reviewErrors(overlayFailure: string | undefined, context: ContextReport | null, helpers: readonly HelperReport[]): string[] {
  const errors: string[] = [];
  if (overlayFailure !== undefined) errors.push(`.ai/ overlay failed closed: ${overlayFailure}`);
  if (context !== null && context.outcome !== "passed") errors.push(`context-script: ${context.error ?? context.outcome}`);
  for (const helper of helpers) {
    const infrastructure = isInfrastructureOutcome(helper.outcome) ? helper.outcome : undefined;
    const failed =
      helper.outcome === "failed" && helper.error === undefined ? `exited ${String(helper.exitCode ?? helper.signal)} without findings` : undefined;
    const parts = [infrastructure, failed, helper.error].filter((part) => part !== undefined);
    if (parts.length > 0) errors.push(`${helper.name}: ${parts.join(": ")}`);
  }
  return errors;
}
