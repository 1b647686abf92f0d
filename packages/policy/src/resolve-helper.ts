import type { CheckResult } from "./config-error.js";
import { checkHelperCommand, checkHelperCwd } from "./helper-command.js";
import { resolveHelperImage, type HelperImage } from "./helper-image.js";
import type { HelperSpec, OutputFormat, SeverityMap } from "./helper-spec.js";
import { checkInstallSpec, type InstallSpec } from "./install-spec.js";
import { narrowLimits, type HelperLimits } from "./limit-narrowing.js";
import type { OperatorPolicy } from "./operator-policy.js";

/** A helper that passed every rule, with the values the sandbox runs it with. */
export interface ResolvedHelper {
  readonly name: string;
  readonly description: string;
  /**
   * The argv before runtime arguments: every `.ai` path (`command[0]` or an argument) normalised
   * and absolute under `SANDBOX_WORKTREE` (`/work/.ai/lint.sh`), whatever the cwd
   * (docs/architecture.md, layer 2: helpers run only trusted code).
   */
  readonly command: readonly string[];
  /** Normalised, relative to the worktree root (`.` for the root), never inside a PR's `.ai`. */
  readonly cwd: string;
  readonly image: HelperImage;
  readonly format: OutputFormat;
  /** Empty when the config gives none. */
  readonly severity: SeverityMap;
  readonly limits: HelperLimits;
  readonly allowArgs: boolean;
  readonly maxArgs: number;
  readonly argsSeparator: boolean;
  readonly install: InstallSpec | undefined;
  /** What the operator's ceilings reduced, for the report. */
  readonly warnings: readonly string[];
}

const NO_INSTALL: CheckResult<undefined> = { ok: true, value: undefined };

/**
 * Applies the command (docs/architecture.md, layer 2: helpers run only trusted code), cwd, install,
 * image and limit rules to a helper whose shape has been checked, collecting every problem rather
 * than stopping at the first.
 *
 * @param field the helper's path in the config (`helpers[2]`), for messages.
 */
export function resolveHelper(spec: HelperSpec, field: string, operator: OperatorPolicy): CheckResult<ResolvedHelper> {
  const command = checkHelperCommand(spec.command, `${field}.command`);
  const cwd = checkHelperCwd(spec.cwd, `${field}.cwd`);
  const install = spec.install === undefined ? NO_INSTALL : checkInstallSpec(spec.install, `${field}.install`);
  const image = resolveHelperImage(spec.image, operator, `${field}.image`);
  const limits = narrowLimits(spec, operator.limits, field);
  if (!command.ok || !cwd.ok || !install.ok || !image.ok || !limits.ok) {
    const results = [command, cwd, install, image, limits];
    return { ok: false, errors: results.flatMap((result) => (result.ok ? [] : result.errors)) };
  }
  return {
    ok: true,
    value: Object.freeze({
      name: spec.name,
      description: spec.description,
      command: command.value,
      cwd: cwd.value,
      image: image.value,
      format: spec.format,
      severity: spec.severity ?? {},
      limits: limits.value.limits,
      allowArgs: spec.allow_args,
      maxArgs: spec.max_args,
      argsSeparator: spec.args_separator,
      install: install.value,
      warnings: limits.value.warnings,
    }),
  };
}
