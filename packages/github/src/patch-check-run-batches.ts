import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { writeCheckRunState } from "./check-run-state.js";
import type { CheckRunTarget } from "./find-or-create-check-run.js";
import type { RenderedCheckRun } from "./render-check-run.js";
import type { CheckRunAnnotation } from "./render-annotations.js";

/** GitHub takes at most 50 annotations per create/update request and appends across updates. */
export const ANNOTATION_BATCH_SIZE = 50;

/** `annotations` in GitHub's batches; one empty batch when there are none (it carries the output). */
export function annotationBatches(annotations: readonly CheckRunAnnotation[]): CheckRunAnnotation[][] {
  const batches: CheckRunAnnotation[][] = [];
  for (let start = 0; start < annotations.length; start += ANNOTATION_BATCH_SIZE) batches.push(annotations.slice(start, start + ANNOTATION_BATCH_SIZE));
  if (batches.length === 0) batches.push([]);
  return batches;
}

/**
 * PATCHes check run `runId` with the rendered output, one batch of annotations per request from
 * `resume` on; the last request also completes the run with its conclusion. After each request the
 * count of batches sent is recorded under `counter` in the run's Redis state (`stateKey`), so a
 * retry resumes after them and sends none twice. Every text is scrubbed on its way out.
 */
export async function patchCheckRunBatches(
  target: CheckRunTarget,
  scrubber: SecretScrubber,
  run: { readonly runId: number; readonly stateKey: string; readonly counter: string },
  rendered: RenderedCheckRun,
  batches: readonly (readonly CheckRunAnnotation[])[],
  resume: number,
): Promise<void> {
  const scrub = (text: string): string => scrubber.scrub(text);
  for (let index = resume; index < batches.length; index++) {
    const last = index === batches.length - 1;
    await target.octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
      owner: target.owner,
      repo: target.repo,
      check_run_id: run.runId,
      output: {
        title: scrub(rendered.title),
        summary: scrub(rendered.summary),
        ...(rendered.text === undefined ? {} : { text: scrub(rendered.text) }),
        annotations: (batches[index] ?? []).map((a) => ({ ...a, message: scrub(a.message), title: scrub(a.title) })),
      },
      ...(last ? { status: "completed", conclusion: rendered.conclusion, completed_at: new Date().toISOString() } : {}),
    });
    await writeCheckRunState(target.redis, run.stateKey, last ? { [run.counter]: index + 1, status: "completed" } : { [run.counter]: index + 1 });
  }
}
