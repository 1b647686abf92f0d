import type { Logger } from "@reviewbot/core/logger";
import type { EngineName } from "@reviewbot/core/engine-names";
import { runOutcome, type RunOutcome } from "./run-outcome.js";
import type { SandboxEngine, SandboxResult, SandboxSpec } from "./sandbox-spec.js";

/** Told of every run's engine and outcome, or that the engine itself failed (a worker counts them in its metrics). */
export type RunObserver = (engine: EngineName, outcome: RunOutcome | "engine-error") => void;

/**
 * Wraps an engine so that every run writes one structured audit line (job, repo, PR, helper,
 * engine, image, exit, duration, timeout, OOM, truncation) and is told to `observe`. Every
 * capability of the engine is forwarded unchanged.
 */
export function auditedEngine(engine: SandboxEngine, logger: Logger, observe: RunObserver = () => undefined): SandboxEngine {
  return {
    name: engine.name,
    sandboxed: engine.sandboxed,
    runsInstalls: engine.runsInstalls,
    ...(engine.installSupport === undefined ? {} : { installSupport: engine.installSupport }),
    health: (signal) => engine.health(signal),
    close: () => engine.close(),
    async run(spec: SandboxSpec): Promise<SandboxResult> {
      const fields = { ...spec.labels, engine: engine.name, image: spec.image };
      try {
        const result = await engine.run(spec);
        const outcome = runOutcome(result);
        observe(engine.name, outcome);
        const { exitCode, signal, timedOut, cancelled, oomKilled, outputTruncated, durationMs, sandboxed } = result;
        logger.info({ ...fields, outcome, sandboxed, exitCode, signal, timedOut, cancelled, oomKilled, outputTruncated, durationMs }, "sandbox run");
        return result;
      } catch (err) {
        observe(engine.name, "engine-error");
        logger.error({ ...fields, outcome: "engine-error", err }, "sandbox run failed");
        throw err;
      }
    },
  };
}
