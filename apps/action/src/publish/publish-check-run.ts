import { annotationBatches } from "@reviewbot/github/patch-check-run-batches";
import type { RenderedCheckRun } from "@reviewbot/github/render-check-run";
import { z } from "zod";
import { githubRequest } from "./github-request.js";
import type { ActionTarget } from "./publish-results.js";

/** The check run's name: the job's own check run is named after the job, this one after us. */
export const CHECK_RUN_NAME = "reviewbot";

const CreatedCheckRun = z.object({ id: z.int().positive(), html_url: z.string().nullish() });

/**
 * Creates one check run on the head with the rendered output, its annotations in GitHub's batches
 * of 50 (created with the first, each later one PATCHed: GitHub appends them), completed with the
 * last request. Needs `checks: write`; GitHub's refusal is thrown to the caller, which learns from
 * it what the token may do. Returns the run's id and page.
 */
export async function publishCheckRun(target: ActionTarget, rendered: RenderedCheckRun): Promise<{ readonly id: number; readonly url: string | null }> {
  const batches = annotationBatches(rendered.annotations);
  const output = (index: number): object => ({
    title: rendered.title,
    summary: rendered.summary,
    ...(rendered.text === undefined ? {} : { text: rendered.text }),
    annotations: batches[index] ?? [],
  });
  const done = (index: number): object =>
    index === batches.length - 1 ? { status: "completed", conclusion: rendered.conclusion, completed_at: new Date().toISOString() } : { status: "in_progress" };
  const repo = `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}`;
  const created = CreatedCheckRun.parse(
    await githubRequest(target, "POST", `${repo}/check-runs`, { name: CHECK_RUN_NAME, head_sha: target.headSha, output: output(0), ...done(0) }),
  );
  for (let index = 1; index < batches.length; index++) {
    await githubRequest(target, "PATCH", `${repo}/check-runs/${created.id}`, { output: output(index), ...done(index) });
  }
  return { id: created.id, url: created.html_url ?? null };
}
