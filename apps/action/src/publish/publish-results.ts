import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "@reviewbot/core/logger";
import { decideConclusion, renderAnnotations, renderCheckRun } from "@reviewbot/github/render-check-run";
import type { Report } from "@reviewbot/review/pipeline/report";
import { toPublishedReport } from "@reviewbot/review/pipeline/to-published-report";
import { failsAt, type FailLevel } from "@reviewbot/review/render/fail-level";
import { renderReport, type ReportFormat } from "@reviewbot/review/render/render-report";
import { annotationCommands } from "./annotation-commands.js";
import { isNotPermitted } from "./github-request.js";
import { appendOutputs } from "./output-file.js";
import { publishCheckRun } from "./publish-check-run.js";
import { publishPrReview } from "./publish-pr-review.js";
import { renderStepSummary } from "./render-step-summary.js";

export interface ActionTarget {
  readonly apiUrl: string;
  readonly serverUrl: string;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  readonly pullNumber: number;
  readonly headSha: string;
  readonly baseSha: string;
}

export interface ActionFiles {
  readonly stepSummary?: string; // $GITHUB_STEP_SUMMARY
  readonly output?: string; // $GITHUB_OUTPUT
  readonly sarif: string; // where the SARIF file goes (input sarif-file, default under RUNNER_TEMP)
  readonly report?: { readonly path: string; readonly format: ReportFormat };
}

export interface PublishOptions {
  readonly failLevel: FailLevel;
  readonly files: ActionFiles;
  readonly logger: Logger;
  /** Writes one line to the runner's stdout (workflow commands go here). */
  readonly write: (line: string) => void;
  /** Markdown lines for the step summary's list of where results came from and went (`sarif-input`). */
  readonly notes?: readonly string[];
}

/**
 * Puts a finished review where the job's token lets it go, learned by trying (GitHub answers 403
 * to a token without the permission): a check run with every finding as an annotation
 * (`checks: write`); a PR review with the findings on the diff as inline comments, none repeated
 * from an earlier run (`pull-requests: write`); without a check run, every finding as a workflow
 * command annotation, those the runner does not show listed in the step summary. Always: the SARIF
 * file, the optional report file, the step summary and the outputs `conclusion`, `findings` and
 * `sarif-file`. The conclusion is the fleet's (fail closed: an incomplete review is a failure);
 * the exit status is 1 when a finding reaches `failLevel`, or the review is incomplete, unless
 * `failLevel` is `none`.
 */
export async function publishResults(
  report: Report,
  target: ActionTarget,
  options: PublishOptions,
): Promise<{ readonly conclusion: "success" | "failure" | "neutral"; readonly findings: number; readonly exitCode: number }> {
  const { files, logger } = options;
  const published = toPublishedReport(report);
  await writeNew(files.sarif, renderReport(report, "sarif", false));
  if (files.report !== undefined) await writeNew(files.report.path, renderReport(report, files.report.format, false));

  const destinations = [...(options.notes ?? []), `SARIF: \`${files.sarif}\``];
  const rendered = renderCheckRun({ kind: "completed", report: published }, { headSha: target.headSha });
  const check = await attempt(logger, "check run", () => publishCheckRun(target, rendered));
  destinations.push(check.ok ? `Check run: ${check.value.url ?? `#${check.value.id}`}` : `Check run: not created (${check.why})`);
  const everyFinding = check.ok ? "the `reviewbot` check run lists every finding" : "this workflow run's annotations and step summary list every finding";
  const review = await attempt(logger, "pr review", () => publishPrReview(target, published, everyFinding));
  destinations.push(
    review.ok
      ? `Pull request review: ${review.value.comments} new inline comment(s)` +
          (review.value.repeated > 0 ? `; ${review.value.repeated} finding(s) an earlier run commented on not repeated` : "")
      : `Pull request review: not posted (${review.why})`,
  );

  // Without a check run, the annotations are workflow commands: every finding, nothing lost.
  const { commands, overflow } = check.ok ? { commands: [], overflow: [] } : annotationCommands(renderAnnotations(published));
  for (const command of commands) options.write(command);
  if (!check.ok) destinations.push(`Annotations: ${commands.length} in this step, ${overflow.length} more listed below`);

  const { incomplete } = decideConclusion(published);
  const conclusion = rendered.conclusion === "success" || rendered.conclusion === "failure" ? rendered.conclusion : "neutral";
  const findings = report.findings.length + report.ai.findings.length;
  if (files.stepSummary !== undefined) {
    const summary = renderStepSummary({ report: published, headSha: target.headSha, destinations, overflow, sarifFile: files.sarif });
    await appendFile(files.stepSummary, summary, "utf8");
  }
  if (files.output !== undefined) await appendOutputs(files.output, { conclusion, findings: String(findings), "sarif-file": files.sarif });
  const fails = options.failLevel !== "none" && (incomplete || failsAt(report, options.failLevel));
  logger.info(
    {
      conclusion,
      findings,
      checkRun: check.ok ? check.value.id : null,
      review: review.ok ? (review.value.review?.id ?? null) : null,
      annotations: commands.length,
    },
    "results published",
  );
  return { conclusion, findings, exitCode: fails ? 1 : 0 };
}

type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: string };

/**
 * Runs one publication. A refusal for want of permission is how we learn what the token may do
 * (noted); any other failure is logged. Either way the other destinations still get everything.
 */
async function attempt<T>(logger: Logger, destination: string, publish: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await publish() };
  } catch (error) {
    if (isNotPermitted(error)) {
      logger.info({ destination }, "the token may not publish here");
      return { ok: false, why: "the token has no permission for it" };
    }
    logger.warn({ err: error, destination }, "publishing failed");
    return { ok: false, why: "GitHub refused or failed; see the log" };
  }
}

async function writeNew(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, "utf8");
}
