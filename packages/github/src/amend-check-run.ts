import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { ANNOTATION_BATCH_SIZE } from "./complete-check-run.js";
import { checkRunStateKey, writeCheckRunState } from "./check-run-state.js";
import { findOrCreateCheckRun, type CheckRunTarget } from "./find-or-create-check-run.js";
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
  const key = checkRunStateKey(target.repositoryId, target.reviewJobId);
  const sent = new Set(earlier.map((annotation) => JSON.stringify(annotation)));
  const added = rendered.annotations.filter((annotation) => !sent.has(JSON.stringify(annotation)));
  const batches: (typeof added)[] = [];
  for (let start = 0; start < added.length; start += ANNOTATION_BATCH_SIZE) batches.push(added.slice(start, start + ANNOTATION_BATCH_SIZE));
  if (batches.length === 0) batches.push([]);
  const resume = Math.min(Number((await target.redis.hget(key, "amended")) ?? 0) || 0, batches.length - 1);
  const scrub = (text: string): string => deps.scrubber.scrub(text);
  for (let index = resume; index < batches.length; index++) {
    const last = index === batches.length - 1;
    await target.octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
      owner: target.owner,
      repo: target.repo,
      check_run_id: run.id,
      output: {
        title: scrub(rendered.title),
        summary: scrub(rendered.summary),
        ...(rendered.text === undefined ? {} : { text: scrub(rendered.text) }),
        annotations: (batches[index] ?? []).map((a) => ({ ...a, message: scrub(a.message), title: scrub(a.title) })),
      },
      ...(last ? { status: "completed", conclusion: rendered.conclusion, completed_at: new Date().toISOString() } : {}),
    });
    await writeCheckRunState(target.redis, key, last ? { amended: index + 1, status: "completed" } : { amended: index + 1 });
  }
  deps.logger.info({ checkRunId: run.id, conclusion: rendered.conclusion, annotations: added.length }, "check run amended");
}
