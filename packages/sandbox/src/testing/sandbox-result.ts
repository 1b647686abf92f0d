import type { SandboxResult } from "../sandbox-spec.js";

/** A run's result for tests: a clean exit of a sandboxed bwrap run with no output, then `fields`. */
export function sandboxResult(fields: Partial<SandboxResult> = {}): SandboxResult {
  return {
    engine: "bwrap",
    sandboxed: true,
    exitCode: 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    oomKilled: false,
    outputTruncated: false,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    durationMs: 1,
    ...fields,
  };
}
