import { resolve } from "node:path";
import type { Logger } from "@reviewbot/core/logger";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { failsAt, type FailLevel } from "@reviewbot/review/render/fail-level";
import { renderReport, type ReportFormat } from "@reviewbot/review/render/render-report";
import type { ReviewProgress } from "@reviewbot/review/pipeline/review-progress";

export interface ReviewArgs {
  readonly repo: string;
  readonly base: string;
  readonly head: string;
  /** The ref whose head's `.ai/` is trusted (the default branch); without it, the base commit's. */
  readonly configRef?: string;
  readonly format: ReportFormat;
  readonly filterMode: FilterMode;
  readonly failLevel: FailLevel;
}

/**
 * `reviewbot review`: the whole pipeline on a repository treated as a remote. `.ai/` comes from the
 * head of `--config-ref` when given (as the fleet takes it from the default branch), else from the
 * `--base` commit: a local repository names no default branch, and its owner trusts its own refs.
 * With `ai`, the AI review runs after the helpers (the CLI being its own model broker).
 * Returns the rendered report and the exit status: 1 when a finding (a helper's, or the model's
 * placed on the diff) reaches the fail level, else 0.
 */
export async function reviewCommand(
  args: ReviewArgs,
  deps: {
    cache: CloneCache;
    engine: SandboxEngine;
    operator: OperatorPolicy;
    logger: Logger;
    colour: boolean;
    installHooks?: InstallHookRuntime;
    ai?: AiReviewer;
  },
): Promise<{ output: string; exitCode: number }> {
  const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(args.repo) ? args.repo : resolve(args.repo);
  const report = await reviewPullRequest(
    {
      remote,
      base: { ref: args.base },
      head: { ref: args.head },
      ...(args.configRef === undefined ? {} : { config: { ref: args.configRef } }),
      label: "cli",
      filterMode: args.filterMode,
    },
    {
      ...deps,
      secrets: [],
      ...(process.stderr.isTTY ? { onProgress: (update: ReviewProgress) => process.stderr.write(`reviewbot: ${update.message}\n`) } : {}),
    },
  );
  return { output: renderReport(report, args.format, deps.colour), exitCode: failsAt(report, args.failLevel) ? 1 : 0 };
}
