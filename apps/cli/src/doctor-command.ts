import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAppError } from "@reviewbot/core/errors";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import { probeSandboxEngines, type SandboxSetup } from "@reviewbot/sandbox/prepare-sandbox";
import type { ProbeReport } from "@reviewbot/sandbox/readiness-probe";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { selectEngine } from "@reviewbot/sandbox/select-engine";

export interface DoctorOutcome {
  readonly output: string;
  /** 0 when the configured sandbox mode can be met, 1 when it cannot. */
  readonly exitCode: number;
}

/**
 * `reviewbot doctor`: probes every configured engine from inside a real sandbox, shows each
 * check, says which engine the configured mode would use — or why it cannot be met — and
 * starts every allowlisted image with it.
 */
export async function doctorCommand(setup: SandboxSetup): Promise<DoctorOutcome> {
  const lines = [`sandbox mode     ${setup.mode}`, `probe image      ${setup.probeImage}`];
  const { candidates, reports } = await probeSandboxEngines(setup);
  try {
    for (const report of reports) lines.push(...describe(report));
    const selection = selectEngine(setup.mode, candidates, new NoneEngine(), reports);
    lines.push(`selected         ${selection.engine.name}${selection.warning === null ? "" : `  WARNING: ${selection.warning}`}`);
    const images = await checkImages(selection.engine, setup);
    lines.push(...images.lines);
    return { output: `${lines.join("\n")}\n`, exitCode: images.ok ? 0 : 1 };
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

/** Starts every allowlisted image once with the selected engine: present means it actually runs. */
async function checkImages(engine: SandboxEngine, setup: SandboxSetup): Promise<{ ok: boolean; lines: string[] }> {
  if (!engine.sandboxed) return { ok: true, lines: ["images           not checked: helpers run unsandboxed"] };
  const worktree = await mkdtemp(join(tmpdir(), "reviewbot-doctor-"));
  await chmod(worktree, 0o755);
  try {
    const lines: string[] = [];
    let ok = true;
    for (const image of setup.images) {
      const spec = { argv: ["true"], image, worktree, cwd: ".", env: {}, limits: setup.limits, labels: { jobId: "doctor", helper: "image-check" } };
      const result = await engine.run(spec).then(
        (r) => (r.exitCode === 0 ? "runs" : `exited ${String(r.exitCode ?? r.signal)}`),
        (err: unknown) => (isAppError(err) ? err.message : String(err)),
      );
      ok &&= result === "runs";
      lines.push(`image            ${result === "runs" ? "ok  " : "FAIL"} ${image}${result === "runs" ? "" : `: ${result}`}`);
    }
    return { ok, lines };
  } finally {
    await rm(worktree, { recursive: true, force: true });
  }
}
