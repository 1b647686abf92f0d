import { AppError } from "@reviewbot/core/errors";
import { quote } from "./config-error.js";

/** The sandbox availability policies, strictest first. */
export const SANDBOX_MODES = ["require", "auto", "off"] as const;

/**
 * `require`: refuse to run a helper unless a sandbox engine proved isolation; `auto`: use the best
 * engine available and warn loudly when there is none; `off`: the explicit escape hatch.
 */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * Parses `REVIEWBOT_SANDBOX`. Unset means `require`. Anything else that is not exactly one of the
 * modes (`"REQUIRE"`, `" auto"`, `""`, `"on"`, `"true"`) is a startup error, never a silent
 * fallback: an operator who typed the setting meant something, and guessing could turn isolation off.
 *
 * @throws AppError `CONFIG_INVALID` listing the allowed values.
 */
export function parseSandboxMode(value: string | undefined): SandboxMode {
  if (value === undefined) return "require";
  const mode = SANDBOX_MODES.find((m) => m === value);
  if (mode !== undefined) return mode;
  const allowed = SANDBOX_MODES.join(", ");
  throw new AppError("CONFIG_INVALID", `REVIEWBOT_SANDBOX: ${quote(value)} is not a sandbox mode; allowed values: ${allowed}`);
}
