import type { Logger } from "@reviewbot/core/logger";
import type { EngineHealth, SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";

/**
 * Inside the Compose healthcheck's 4 s; a result is reused for as long, so /readyz requests do not
 * each reach the engine.
 */
export const SANDBOX_HEALTH_TIMEOUT_MS = 2000;
export const SANDBOX_HEALTH_MAX_AGE_MS = 2000;

export interface SandboxHealthOptions {
  /** A check that has not answered by then counts as unhealthy. */
  readonly timeoutMs: number;
  /** A result is reused for this long, so that /readyz requests do not each ask the engine. */
  readonly maxAgeMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface SandboxHealth {
  /** The engine's health, at most `maxAgeMs` old; one check at a time however many ask. */
  check(): Promise<EngineHealth>;
}

/**
 * A process's view of its sandbox engine after start-up, for a worker's `/readyz` (which used to
 * stay ready after the engine died): the engine's own cheap check, bounded by a timeout and cached
 * briefly. Logs once when the engine turns unhealthy and once when it recovers, not on every check.
 */
export function createSandboxHealth(engine: Pick<SandboxEngine, "name" | "health">, options: SandboxHealthOptions): SandboxHealth {
  const now = options.now ?? Date.now;
  let last: { readonly health: EngineHealth; readonly at: number } | null = null;
  let inFlight: Promise<EngineHealth> | null = null;

  const run = async (): Promise<EngineHealth> => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    const timedOut = new Promise<EngineHealth>((resolve) => {
      signal.addEventListener("abort", () => {
        resolve({ healthy: false, reason: `the ${engine.name} engine did not answer its health check within ${options.timeoutMs} ms` });
      });
    });
    const health = await Promise.race([
      engine.health(signal).catch((err: unknown): EngineHealth => ({ healthy: false, reason: err instanceof Error ? err.message : String(err) })),
      timedOut,
    ]);
    if (health.healthy !== (last?.health.healthy ?? true)) {
      if (health.healthy) options.logger.info({ engine: engine.name }, "sandbox engine healthy again");
      else options.logger.warn({ engine: engine.name, reason: health.reason }, "sandbox engine unhealthy");
    }
    last = { health, at: now() };
    return health;
  };

  return {
    check() {
      if (last !== null && now() - last.at < options.maxAgeMs) return Promise.resolve(last.health);
      inFlight ??= run().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
  };
}
