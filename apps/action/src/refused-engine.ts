import { AppError } from "@reviewbot/core/errors";
import type { EngineHealth, SandboxEngine, SandboxResult } from "@reviewbot/sandbox/sandbox-spec";

/**
 * The engine of a run whose sandbox mode is `require` and where no engine proved isolation: it
 * refuses every run. The action then reviews with the AI alone (no context script, no helper, no
 * helper tool for the model: see `reviewWithoutHelpers`), so nothing calls it; were anything to,
 * it would fail as an engine that is down fails, never run PR code unsandboxed.
 */
export function refusedEngine(reason: string): SandboxEngine {
  return {
    name: "none",
    sandboxed: false,
    runsInstalls: false,
    run: (): Promise<SandboxResult> => Promise.reject(new AppError("SANDBOX_UNAVAILABLE", `helpers are refused: ${reason}`)),
    health: (): Promise<EngineHealth> => Promise.resolve({ healthy: false, reason }),
    close: () => Promise.resolve(),
  };
}
