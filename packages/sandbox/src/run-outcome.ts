import type { SandboxResult } from "./sandbox-spec.js";

/** How a sandbox run ended: `ok` and `nonzero` are the program's verdicts, the rest are not. */
export type RunOutcome = "ok" | "nonzero" | "cancelled" | "timeout" | "oom" | "truncated" | "signal";

/**
 * The one classification of a run's result, infrastructure outcomes first: a helper that timed out
 * did not "find problems", and an install that ran out of memory did not "fail".
 */
export function runOutcome(result: SandboxResult): RunOutcome {
  // Checked first: a cancelled run was killed by us, whatever else it reached.
  if (result.cancelled) return "cancelled";
  if (result.timedOut) return "timeout";
  if (result.oomKilled) return "oom";
  if (result.outputTruncated) return "truncated";
  if (result.signal !== null) return "signal";
  return result.exitCode === 0 ? "ok" : "nonzero";
}
