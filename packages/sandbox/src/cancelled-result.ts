import type { EngineName } from "@reviewbot/core/engine-names";
import type { SandboxResult } from "./sandbox-spec.js";

/**
 * The result of a run whose signal had aborted before anything was started: no exit, no output.
 * Engines return it instead of starting a sandbox that would only be killed.
 */
export function cancelledResult(engine: EngineName, sandboxed: boolean, durationMs = 0): SandboxResult {
  return {
    engine,
    sandboxed,
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: true,
    oomKilled: false,
    outputTruncated: false,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    durationMs,
  };
}

/**
 * Whether `signal` has aborted. A call, not a property read, so that checks after an `await`
 * are not narrowed away by the compiler: the signal may abort while a run awaits.
 */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
