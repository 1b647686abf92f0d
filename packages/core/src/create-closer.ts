import type { Logger } from "./logger.js";

export type CloseStep = readonly [name: string, close: () => Promise<unknown>];

/**
 * How long one shutdown step may take: a step waiting on a Redis that is gone must not hang the
 * exit past the orchestrator's grace period (Docker's default is 10 s).
 */
export const CLOSE_STEP_TIMEOUT_MS = 5000;

/**
 * Returns an idempotent close for an app's shutdown: the first call runs every step in order, each
 * even when an earlier one threw or timed out (BullMQ's habit), logging failures; later calls
 * return the same promise. It resolves true when every step succeeded in time. A step may itself
 * be such a close (a component's own steps): when it resolves false, its failures are logged
 * already, and this close is not clean either.
 */
export function createCloser(steps: readonly CloseStep[], logger: Logger, stepTimeoutMs = CLOSE_STEP_TIMEOUT_MS): () => Promise<boolean> {
  let closing: Promise<boolean> | undefined;
  return () => {
    closing ??= (async () => {
      let clean = true;
      for (const [name, close] of steps) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => {
            resolve("timeout");
          }, stepTimeoutMs);
        });
        try {
          const outcome = await Promise.race([close(), timeout]);
          if (outcome === "timeout") {
            clean = false;
            logger.error({ step: name, timeoutMs: stepTimeoutMs }, "shutdown step timed out");
          } else if (outcome === false) {
            clean = false;
          }
        } catch (err) {
          clean = false;
          logger.error({ err, step: name }, "shutdown step failed");
        } finally {
          clearTimeout(timer);
        }
      }
      return clean;
    })();
    return closing;
  };
}
