import { relocateTrustedPaths } from "@reviewbot/policy/helper-command";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { SandboxEngine, SandboxLabels } from "@reviewbot/sandbox/sandbox-spec";
import type { InstallContext } from "./install-hook-runtime.js";

/**
 * What running one of the repository's programs in a sandbox needs: a helper (`runHelper`), its
 * install hook (`prepareDeps`) and the context script (`runContextScript`) all take it, so it has
 * a file of its own rather than one of theirs (which made run-helper and prepare-deps import each other).
 */
export interface HelperRun {
  readonly engine: SandboxEngine;
  /** The work tree of the checkout (PR head with the base's `.ai/`). */
  readonly worktree: string;
  readonly labels: Omit<SandboxLabels, "helper">;
  /** Secret values to scrub from everything the report keeps. */
  readonly secrets: readonly string[];
  /** The review's cancellation: kills the sandbox in flight (the result says `cancelled`). */
  readonly signal?: AbortSignal;
  /** Install hooks: off unless the operator turned them on and the worker can run them. */
  readonly install?: InstallContext;
  /** The images a helper may name (for what a missing program's message advises) and the findings limits. */
  readonly operator: Pick<OperatorPolicy, "images" | "defaultImage" | "findings">;
}

/**
 * The argv an engine runs: the policy's, whose `.ai/` paths are absolute under the sandbox's mount
 * point (the base's top-level `.ai/`, whatever the cwd: docs/architecture.md, layer 2: helpers run
 * only trusted code). An unsandboxed engine has no mount point and runs in the worktree itself, so
 * they point there instead.
 */
export function engineArgv(argv: readonly string[], run: Pick<HelperRun, "engine" | "worktree">): readonly string[] {
  return run.engine.sandboxed ? argv : relocateTrustedPaths(argv, run.worktree);
}
