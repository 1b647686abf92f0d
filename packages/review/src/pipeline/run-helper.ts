import { mapFindingPath } from "../findings/map-path.js";
import { parseFindings } from "../findings/parse-findings.js";
import type { Finding } from "../findings/finding.js";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { buildSandboxEnv } from "@reviewbot/policy/sandbox-env";
import { sandboxLimits } from "@reviewbot/sandbox/policy-limits";
import type { SandboxEngine, SandboxLabels } from "@reviewbot/sandbox/sandbox-spec";
import { helperOutcome, reportOutput, sanitiseFindings } from "./helper-output.js";
import type { HelperReport } from "./report.js";

/** Where the sandbox engines mount the work tree. */
const MOUNT_POINT = "/work";

export interface HelperRun {
  readonly engine: SandboxEngine;
  /** The work tree of the checkout (PR head with the base's `.ai/`). */
  readonly worktree: string;
  readonly labels: Omit<SandboxLabels, "helper">;
  /** Secret values to scrub from everything the report keeps. */
  readonly secrets: readonly string[];
}

/**
 * Runs one helper in its own sandbox and turns its output into findings on repository paths.
 * An engine failure (SANDBOX_UNAVAILABLE) propagates: the review is retried, never run
 * unsandboxed.
 */
export async function runHelper(helper: ResolvedHelper, run: HelperRun): Promise<HelperReport> {
  const result = await run.engine.run({
    argv: helper.command,
    image: helper.image.reference,
    worktree: run.worktree,
    cwd: helper.cwd,
    env: buildSandboxEnv({}),
    limits: sandboxLimits(helper.limits),
    labels: { ...run.labels, helper: helper.name },
  });
  // Parsers read the raw text (invalid UTF-8 already replaced); what they extract is sanitised.
  const parsed = parseFindings(helper.format, result.stdout.toString("utf8"), { helper: helper.name, severity: helper.severity });
  const problems = [...parsed.problems, ...helper.warnings];
  if (helper.install !== undefined) problems.push("install hook not run: install hooks are not supported yet");
  const findings: Finding[] = [];
  for (const finding of parsed.findings) {
    const mapped = mapFindingPath(finding.path, { mountPoint: MOUNT_POINT, cwd: helper.cwd });
    if (mapped.path === null) problems.push(mapped.problem);
    else findings.push({ ...finding, path: mapped.path });
  }
  return {
    name: helper.name,
    image: helper.image.name,
    engine: result.engine,
    sandboxed: result.sandboxed,
    outcome: helperOutcome(result, findings.length),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    oomKilled: result.oomKilled,
    outputTruncated: result.outputTruncated,
    durationMs: result.durationMs,
    ...reportOutput(result, run.secrets),
    findings: sanitiseFindings(findings, run.secrets),
    problems,
  };
}
