import { isAppError } from "@reviewbot/core/errors";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import { probeSandboxEngines, type SandboxSetup } from "@reviewbot/sandbox/prepare-sandbox";
import type { ProbeReport } from "@reviewbot/sandbox/readiness-probe";
import { selectEngine } from "@reviewbot/sandbox/select-engine";

export interface DoctorOutcome {
  readonly output: string;
  /** 0 when the configured sandbox mode can be met, 1 when it cannot. */
  readonly exitCode: number;
}

/**
 * `reviewbot doctor`: probes every configured engine from inside a real sandbox, shows each
 * check, and says which engine the configured mode would use — or why it cannot be met.
 */
export async function doctorCommand(setup: SandboxSetup): Promise<DoctorOutcome> {
  const lines = [`sandbox mode     ${setup.mode}`, `probe image      ${setup.probeImage}`];
  const { candidates, reports } = await probeSandboxEngines(setup);
  try {
    for (const report of reports) lines.push(...describe(report));
    const selection = selectEngine(setup.mode, candidates, new NoneEngine());
    lines.push(`selected         ${selection.engine.name}${selection.warning === null ? "" : `  WARNING: ${selection.warning}`}`);
    return { output: `${lines.join("\n")}\n`, exitCode: 0 };
  } catch (err) {
    lines.push(`selected         none: ${isAppError(err) ? err.message : String(err)}`);
    return { output: `${lines.join("\n")}\n`, exitCode: 1 };
  } finally {
    await Promise.all(candidates.map((candidate) => candidate.engine.close()));
  }
}

function describe(report: ProbeReport): string[] {
  const head = `engine ${report.engine.padEnd(9)} ${report.ok ? "ready" : "NOT READY"} (${report.durationMs} ms)`;
  if (report.checks.length === 0) return [head, `  ${report.reason ?? ""}`];
  return [head, ...report.checks.map((check) => `  ${check.ok ? "ok  " : "FAIL"} ${check.name.padEnd(20)} ${check.detail.trim()}`)];
}
