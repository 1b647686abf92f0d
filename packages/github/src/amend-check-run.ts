import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { checkRunStateKey } from "./check-run-state.js";
import { findOrCreateCheckRun, type CheckRunTarget } from "./find-or-create-check-run.js";
import { annotationBatches, patchCheckRunBatches } from "./patch-check-run-batches.js";
import type { RenderedCheckRun } from "./render-check-run.js";
import type { CheckRunAnnotation } from "./render-annotations.js";

/**
 * Updates a review job's check run, completed or not, with a result that extends the one it shows
 * (the AI review, retried alone, added to the helpers' results): title, summary, text and
 * conclusion are replaced, and only the annotations that `earlier` (what was published before)
 * lacks are sent, 50 per PATCH, since GitHub appends annotations across updates. The batches sent
 * are counted in Redis (`amended`), so a retried task resumes after them and sends none twice.
 */
export async function amendCheckRun(
  target: CheckRunTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  rendered: RenderedCheckRun,
  earlier: readonly CheckRunAnnotation[],
): Promise<void> {
  const run = await findOrCreateCheckRun(target);
  const key = checkRunStateKey(target.keys, target.repositoryId, target.reviewJobId);
  const sent = new Set(earlier.map((annotation) => JSON.stringify(annotation)));
  const added = rendered.annotations.filter((annotation) => !sent.has(JSON.stringify(annotation)));
  const batches = annotationBatches(added);
  const resume = Math.min(Number((await target.redis.hget(key, "amended")) ?? 0) || 0, batches.length - 1);
  await patchCheckRunBatches(target, deps.scrubber, { runId: run.id, stateKey: key, counter: "amended" }, rendered, batches, resume);
  deps.logger.info({ checkRunId: run.id, conclusion: rendered.conclusion, annotations: added.length }, "check run amended");
}
