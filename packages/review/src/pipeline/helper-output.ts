import { sanitiseText } from "../findings/sanitise-output.js";
import { runOutcome, type RunOutcome } from "@reviewbot/sandbox/run-outcome";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import type { HelperOutcome } from "@reviewbot/contracts/helper-outcome";

/** What a report keeps of a helper's raw output: enough to debug, never enough to flood. */
const REPORT_OUTPUT = { maxBytes: 64 * 1024, maxLines: 500 } as const;
// Read of each stream before sanitising: room for what stripping removes, and a bound on the
// event loop's work whatever the output cap (a document format may print megabytes).
const REPORT_INPUT_BYTES = 4 * REPORT_OUTPUT.maxBytes;

/** Outcomes the infrastructure decided (we killed the run, or cut it off): never a verdict on the code. */
type InfrastructureOutcome = Extract<HelperOutcome, RunOutcome>;
const INFRASTRUCTURE: ReadonlySet<string> = new Set<InfrastructureOutcome>(["cancelled", "timeout", "oom", "truncated"]);

export function isInfrastructureOutcome(outcome: string): outcome is InfrastructureOutcome {
  return INFRASTRUCTURE.has(outcome);
}

/** The run's outcome (infrastructure first: a helper that timed out did not "find problems"), then its findings. */
export function helperOutcome(result: SandboxResult, findings: number): HelperOutcome {
  const outcome = runOutcome(result);
  // We killed it (or never started it): whatever it printed is not a verdict.
  if (isInfrastructureOutcome(outcome)) return outcome;
  if (findings > 0) return "findings";
  return outcome === "ok" ? "passed" : "failed";
}

/** The sanitised stdout and stderr a report carries. */
export function reportOutput(result: SandboxResult, secrets: readonly string[]): { stdout: string; stderr: string } {
  const options = { ...REPORT_OUTPUT, secrets };
  const head = (output: Buffer) => output.subarray(0, REPORT_INPUT_BYTES);
  return { stdout: sanitiseText(head(result.stdout), options).text, stderr: sanitiseText(head(result.stderr), options).text };
}
