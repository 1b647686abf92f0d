import type { HelperLimits } from "@reviewbot/policy/limit-narrowing";
import type { SandboxLimits } from "./sandbox-spec.js";

/** The sandbox limits for a helper whose limits the policy has narrowed. */
export function sandboxLimits(limits: HelperLimits): SandboxLimits {
  return {
    timeoutMs: limits.timeoutSeconds * 1000,
    memoryBytes: limits.memoryBytes,
    cpus: limits.cpus,
    pids: limits.pids,
    outputBytes: limits.outputBytes,
    tmpfsBytes: limits.tmpfsBytes,
    nofile: limits.nofile,
    fsizeBytes: limits.fsizeBytes,
  };
}
