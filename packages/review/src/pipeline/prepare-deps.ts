import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { DEPS_MOUNT, installPlan, REGISTRY_MOUNT } from "@reviewbot/policy/install-plan";
import { depsKey } from "@reviewbot/sandbox/deps-cache";
import { sandboxLimits } from "@reviewbot/sandbox/policy-limits";
import { runOutcome } from "@reviewbot/sandbox/run-outcome";
import type { SandboxMount, SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import { sanitiseText } from "../findings/sanitise-output.js";
import type { HelperRun } from "./helper-run.js";
import type { InstallReport } from "./report.js";

const STDERR_EXCERPT = { maxBytes: 2000, maxLines: 20 } as const;

/** What a helper gets from its install hook: a read-only mount, or the reason it has none. */
export interface PreparedDeps {
  readonly report: InstallReport;
  readonly problems: readonly string[];
  /** The cached install, mounted read-only at /opt/reviewbot/deps. */
  readonly mount?: SandboxMount;
  /** The install sandbox's result when the install failed: the helper is then not run. */
  readonly failure?: SandboxResult;
}

const notRun = (reason: string): PreparedDeps => ({ report: { status: "not-run", durationMs: 0 }, problems: [`install hook not run: ${reason}`] });

/**
 * Runs a helper's install hook in its own container, or reuses its cached result. Fails closed:
 * with install hooks off, on an engine that cannot run installs (bwrap, none; a container engine
 * that cannot give an install a uid of its own), without the registry proxy, or for a hook the
 * plan refuses, nothing is installed and the helper runs without it, with a problem saying
 * why. The install sandbox has every usual limit, no view of the checkout, `--network none`, and
 * two mounts: its (empty, writable) target and the registry proxy's directory (read-only).
 */
export async function prepareDeps(helper: ResolvedHelper, run: HelperRun): Promise<PreparedDeps | null> {
  if (helper.install === undefined) return null;
  const context = run.install;
  if (context === undefined || context.mode === "off") return notRun("install hooks are disabled by the operator (installHooks: off)");
  if (!run.engine.runsInstalls)
    return notRun(
      `install hooks need the container engine, run by a root worker or on a rootful daemon, so that each install's writable mount is a uid's of its own (this worker runs ${run.engine.name})`,
    );
  const runtime = context.runtime;
  if (runtime === undefined) return notRun("this worker has no registry proxy for install hooks");
  const planned = installPlan(helper.install);
  if (!planned.ok) return notRun(planned.problem);

  const started = performance.now();
  const imageId = await runtime.images.imageId(helper.image.reference);
  const key = depsKey({ remote: context.remote, imageId, argv: helper.install.argv });
  let result: SandboxResult | undefined;
  const entry = await runtime.cache.obtain(key, async (target) => {
    result = await run.engine.run({
      argv: planned.plan.argv,
      // The id the key holds, not the tag: a tag moved meanwhile must not fill this entry.
      image: imageId,
      worktree: runtime.cache.emptyDir,
      cwd: ".",
      env: planned.plan.env,
      limits: sandboxLimits(helper.limits),
      labels: { ...run.labels, helper: `${helper.name}.install` },
      mounts: [
        { source: target, target: DEPS_MOUNT, writable: true },
        { source: runtime.registryDir, target: REGISTRY_MOUNT, writable: false },
      ],
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
    return succeeded(result);
  });
  const durationMs = Math.round(performance.now() - started);
  if (entry.dir !== null) {
    return {
      report: { status: entry.cached ? "cached" : "installed", durationMs },
      problems: [],
      mount: { source: entry.dir, target: DEPS_MOUNT, writable: false },
    };
  }
  const problems = [`install hook failed: ${describe(result)}`];
  if (result !== undefined && result.stderr.length > 0) {
    const tail = result.stderr.subarray(Math.max(0, result.stderr.length - STDERR_EXCERPT.maxBytes));
    problems.push(`install hook stderr: ${sanitiseText(tail, { ...STDERR_EXCERPT, secrets: run.secrets }).text}`);
  }
  return { report: { status: "failed", durationMs }, problems, ...(result === undefined ? {} : { failure: result }) };
}

function succeeded(result: SandboxResult): boolean {
  return runOutcome(result) === "ok";
}

function describe(result: SandboxResult | undefined): string {
  if (result === undefined) return "another run of the same install failed";
  switch (runOutcome(result)) {
    case "cancelled":
      return "cancelled";
    case "timeout":
      return "timed out";
    case "oom":
      return "killed for memory";
    case "truncated":
      return "output over the limit";
    case "signal":
      return `killed by ${String(result.signal)}`;
    default:
      return `exited ${String(result.exitCode)}`;
  }
}
