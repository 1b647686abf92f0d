import { appendFile } from "node:fs/promises";
import type { Logger } from "@reviewbot/core/logger";
import { isAtLeast } from "@reviewbot/contracts/severity";
import type { Report } from "@reviewbot/review/pipeline/report";
import type { FailLevel, ReportFormat } from "../action-settings.js";

// A minimal stand-in for part B's publication (issue 24 part 4), with its exact signature: it
// writes a short report to the step summary and decides the exit status. B's version replaces it.

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
}

export async function publishResults(
  report: Report,
  target: ActionTarget,
  options: PublishOptions,
): Promise<{ readonly conclusion: "success" | "failure" | "neutral"; readonly findings: number; readonly exitCode: number }> {
  const findings = [...report.findings, ...report.ai.findings];
  const { failLevel } = options;
  const failed = failLevel !== "none" && findings.some((finding) => isAtLeast(finding.severity, failLevel));
  const lines = [
    `## reviewbot: pull request #${String(target.pullNumber)} at ${target.headSha.slice(0, 12)}`,
    "",
    `${String(findings.length)} finding(s); AI review: ${report.ai.status}; helpers: ${String(report.helpers.length)} (${report.engine}, sandboxed: ${String(report.sandboxed)})`,
    ...findings.map((finding) => `- ${finding.path}:${String(finding.line)} ${"title" in finding ? finding.title : finding.message}`),
    ...report.errors.map((error) => `- ${error}`),
    "",
  ];
  if (options.files.stepSummary !== undefined) await appendFile(options.files.stepSummary, `${lines.join("\n")}\n`);
  return { conclusion: failed ? "failure" : "success", findings: findings.length, exitCode: failed ? 1 : 0 };
}
