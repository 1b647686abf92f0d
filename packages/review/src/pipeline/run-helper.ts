import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { depsEnv } from "@reviewbot/policy/install-plan";
import { buildSandboxEnv } from "@reviewbot/policy/sandbox-env";
import { sandboxLimits } from "@reviewbot/sandbox/policy-limits";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import { readHelperFindings, outputCap } from "./helper-findings.js";
import { helperOutcome, reportOutput } from "./helper-output.js";
import { engineArgv, type HelperRun } from "./helper-run.js";
import { missingProgramProblem } from "./missing-program-problem.js";
import { prepareDeps, type PreparedDeps } from "./prepare-deps.js";
import type { HelperReport } from "./report.js";

/**
 * Runs one helper in its own sandbox and turns its output into findings on repository paths.
 * An engine failure (SANDBOX_UNAVAILABLE) propagates: the review is retried, never run
 * unsandboxed.
 */
export async function runHelper(helper: ResolvedHelper, run: HelperRun): Promise<HelperReport> {
  const deps = await prepareDeps(helper, run);
  if (deps?.report.status === "failed") return installFailed(helper, deps, run);
  const result = await run.engine.run({
    argv: engineArgv(helper.command, run),
    image: helper.image.reference,
    worktree: run.worktree,
    cwd: helper.cwd,
    // PATH, NODE_PATH and PYTHONPATH into the read-only deps: set by us, never by the repository.
    env: deps?.mount === undefined ? buildSandboxEnv({}) : depsEnv(buildSandboxEnv({})),
    limits: sandboxLimits({ ...helper.limits, outputBytes: outputCap(helper.format, helper.limits, run.operator.findings) }),
    labels: { ...run.labels, helper: helper.name },
    ...(deps?.mount === undefined ? {} : { mounts: [deps.mount] }),
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  });
  const read = await readHelperFindings(helper, result, { findings: run.operator.findings, secrets: run.secrets, signal: run.signal });
  const outcome = helperOutcome(result, read.findings.length);
  // A helper that could not start its program did not "fail": say which program, which image.
  const missing = outcome === "failed" ? await missingProgramProblem(result, { ...run, argv: helper.command, image: helper.image, owner: "helper" }) : null;
  const error = missing ?? read.error;
  return {
    name: helper.name,
    image: helper.image.name,
    engine: result.engine,
    sandboxed: result.sandboxed,
    // Output that was not read gave no verdict: it did not pass.
    outcome: outcome === "passed" && read.error !== null ? "failed" : outcome,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    oomKilled: result.oomKilled,
    outputTruncated: result.outputTruncated,
    durationMs: result.durationMs,
    ...reportOutput(result, run.secrets),
    findings: read.findings,
    problems: [...(missing === null ? [] : [missing]), ...read.problems, ...helper.warnings, ...(deps?.problems ?? [])],
    ...(error === null ? {} : { error }),
    install: deps?.report ?? null,
  };
}

/** A helper whose install hook failed is not run: the report carries the install's result. */
function installFailed(helper: ResolvedHelper, deps: PreparedDeps, run: HelperRun): HelperReport {
  const result: SandboxResult | undefined = deps.failure;
  const outcome = result === undefined ? "failed" : helperOutcome(result, 0);
  return {
    name: helper.name,
    image: helper.image.name,
    engine: result?.engine ?? run.engine.name,
    sandboxed: result?.sandboxed ?? true,
    // An install that exited 0 but could not be kept is a failure all the same.
    outcome: outcome === "passed" ? "failed" : outcome,
    exitCode: result?.exitCode ?? null,
    signal: result?.signal ?? null,
    timedOut: result?.timedOut ?? false,
    oomKilled: result?.oomKilled ?? false,
    outputTruncated: result?.outputTruncated ?? false,
    durationMs: deps.report.durationMs,
    ...(result === undefined ? { stdout: "", stderr: "" } : reportOutput(result, run.secrets)),
    findings: [],
    problems: [...helper.warnings, ...deps.problems],
    install: deps.report,
  };
}
