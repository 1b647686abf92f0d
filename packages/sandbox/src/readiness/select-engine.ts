import { AppError } from "@reviewbot/core/errors";
import type { ProbeReport } from "./readiness-probe.js";
import type { SandboxMode } from "@reviewbot/policy/sandbox-mode";
import type { SandboxEngine } from "../sandbox-spec.js";

export interface Candidate {
  readonly engine: SandboxEngine;
  readonly probe: ProbeReport;
}

export interface Selection {
  readonly engine: SandboxEngine;
  /** Set when the choice is weaker than asked for; the caller logs it loudly. */
  readonly warning: string | null;
}

/**
 * Picks the engine helpers run in. Candidates come strongest first. `require`: the first that
 * passed its readiness probe, else SANDBOX_UNAVAILABLE listing every reason. `auto`: the same, but
 * when none passed, the unsandboxed engine with a warning. `off`: the unsandboxed engine, always
 * with a warning. An unsandboxed engine is never chosen silently.
 */
export function selectEngine(
  mode: SandboxMode,
  candidates: readonly Candidate[],
  unsandboxed: SandboxEngine,
  /** Every engine's report, including engines that could not even be created. */
  reports: readonly ProbeReport[] = candidates.map((candidate) => candidate.probe),
): Selection {
  if (mode === "off") {
    return { engine: unsandboxed, warning: "sandbox mode is off: helpers run UNSANDBOXED on the worker" };
  }
  const ready = candidates.find((candidate) => candidate.probe.ok);
  if (ready !== undefined) return { engine: ready.engine, warning: null };
  const reasons = reports.map((report) => `${report.engine}: ${report.reason ?? "failed"}`).join("; ") || "no engine configured";
  if (mode === "require") {
    throw new AppError("SANDBOX_UNAVAILABLE", `no sandbox engine passed its readiness probe (${reasons})`);
  }
  return { engine: unsandboxed, warning: `no sandbox engine is ready, helpers run UNSANDBOXED (${reasons})` };
}
