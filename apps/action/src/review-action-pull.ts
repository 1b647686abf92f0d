import type { Logger } from "@reviewbot/core/logger";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { Finding } from "@reviewbot/review/findings/finding";
import type { Report } from "@reviewbot/review/pipeline/report";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import type { ActionRuntime } from "./action-runtime.js";
import type { PullRequestFacts } from "./read-pull-request.js";

export interface ActionPull {
  /** `<GITHUB_SERVER_URL>/<owner>/<repo>.git`: the base repository, which holds `refs/pull/<n>/head`. */
  readonly remote: string;
  readonly token: string;
  readonly pull: PullRequestFacts;
  /** The commit to review: the event's head (a `pull_request[_target]` run), else the API's. */
  readonly headSha: string;
  readonly filterMode: FilterMode;
  /** The code scanners' findings (`sarif-input`), filtered and published with the helpers'. */
  readonly scanned: readonly Finding[];
}

/**
 * One PR reviewed as the fleet's worker reviews it (docs/architecture.md, layer 7): the action's own
 * checkout in its cache (the PR head fetched as data from the base repository, with the job's token
 * through the clone cache's askpass, never in argv or the URL), `.ai/` from the head of the default
 * branch, failing closed, and never from GITHUB_WORKSPACE. When helpers are refused (no engine
 * proved isolation under `require`) the review is the AI's alone: no context script, no helper and
 * no helper tool for the model, and the report says why.
 */
export async function reviewActionPull(
  target: ActionPull,
  runtime: ActionRuntime,
  deps: { readonly logger: Logger; readonly ai?: AiReviewer },
): Promise<Report> {
  const { pull } = target;
  const { refusal } = runtime;
  const { ai } = deps;
  const report = await reviewPullRequest(
    {
      remote: target.remote,
      head: { ref: `refs/pull/${String(pull.number)}/head`, sha: target.headSha },
      base: { ref: `refs/heads/${pull.baseRef}`, sha: pull.baseSha },
      config: { ref: `refs/heads/${pull.defaultBranch}` },
      credentials: { username: "x-access-token", password: target.token },
      label: `pr-${String(pull.number)}`,
      filterMode: target.filterMode,
      scanned: target.scanned,
      pullRequest: { number: pull.number, title: pull.title, body: pull.body },
      ...(refusal === null ? {} : { aiOnly: true }),
    },
    {
      cache: runtime.cache,
      engine: runtime.engine,
      operator: runtime.operator,
      logger: deps.logger,
      secrets: [target.token],
      ...(runtime.installHooks === undefined ? {} : { installHooks: runtime.installHooks }),
      ...(ai === undefined ? {} : { ai: refusal === null ? ai : (input) => ai({ ...input, helpers: [] }) }),
    },
  );
  return refusal === null ? report : { ...report, errors: [`helpers refused: ${refusal}`, ...report.errors] };
}
