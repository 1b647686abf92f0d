import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { checkRunStateKey, readCheckRunState, writeCheckRunState } from "./check-run-state.js";
import { ANNOTATION_BATCH_SIZE, annotationBatches, patchCheckRunBatches } from "./patch-check-run-batches.js";
import { findOrCreateCheckRun, type CheckRunTarget } from "./find-or-create-check-run.js";
import type { RenderedCheckRun } from "./render-check-run.js";

/**
 * Completes the review job's check run with a rendered result, idempotently. The first PATCH carries
 * the summary and the first 50 annotations, each later one 50 more (GitHub appends them); the last
 * also sets `completed` and the conclusion. After each PATCH the batch count is recorded in Redis,
 * and a retry resumes after the larger of that count and what GitHub already holds
 * (`annotations_count`), so no batch is sent twice. A completed run is left alone. The check run
 * and its state belong to one review job, published by one `github` task at a time.
 */
export async function completeCheckRun(
  target: CheckRunTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  rendered: RenderedCheckRun,
): Promise<void> {
  const run = await findOrCreateCheckRun(target);
  if (run.status === "completed") return;
  const key = checkRunStateKey(target.keys, target.repositoryId, target.reviewJobId);
  const { data: current } = (await target.octokit.request("GET /repos/{owner}/{repo}/check-runs/{check_run_id}", {
    owner: target.owner,
    repo: target.repo,
    check_run_id: run.id,
  })) as { data: { status: string; output?: { annotations_count?: number } } };
  if (current.status === "completed") {
    await writeCheckRunState(target.redis, key, { status: "completed" });
    return;
  }
  const batches = annotationBatches(rendered.annotations);
  const onGitHub = Math.floor((current.output?.annotations_count ?? 0) / ANNOTATION_BATCH_SIZE);
  const resume = Math.min(Math.max((await readCheckRunState(target.redis, key)).batches, onGitHub), batches.length - 1);
  await patchCheckRunBatches(target, deps.scrubber, { runId: run.id, stateKey: key, counter: "batches" }, rendered, batches, resume);
  deps.logger.info({ checkRunId: run.id, conclusion: rendered.conclusion, batches: batches.length - resume }, "check run completed");
}
