import { createCloser } from "@reviewbot/core/create-closer";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import { prepareSandbox } from "@reviewbot/sandbox/prepare-sandbox";
import { auditedEngine, type RunObserver } from "@reviewbot/sandbox/sandbox-audit";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { loadOperatorPolicy } from "./load-operator-policy.js";
import { openCloneCache } from "./open-clone-cache.js";
import { DEFAULT_CA_BUNDLE, openInstallHooks } from "./open-install-hooks.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { sandboxSetup } from "./sandbox-setup.js";
import { createSandboxHealth, SANDBOX_HEALTH_MAX_AGE_MS, SANDBOX_HEALTH_TIMEOUT_MS, type SandboxHealth } from "./sandbox-health.js";

export interface ReviewRuntimeOptions {
  readonly scrubber: SecretScrubber;
  /** What the clone cache may fetch over: the app's decision (see `openCloneCache`). */
  readonly allowedProtocols: readonly string[];
  /** Told of every run's engine and outcome (a worker's metrics). */
  readonly onRun?: RunObserver;
}

/** What `reviewPullRequest` runs on in this process, and how it is shut down. */
export interface ReviewRuntime {
  readonly cache: CloneCache;
  /** The selected engine, audited: every run is logged once and counted. */
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  /** The registry proxy and deps cache; absent when install hooks are off or cannot run here. */
  readonly installHooks?: InstallHookRuntime;
  /** The engine's health for a readiness check, bounded and cached (see `createSandboxHealth`). */
  readonly health: SandboxHealth;
  /**
   * Stops the install hooks' proxy, then the engine's sandboxes and services, each even when the
   * other fails (failures are logged). Idempotent; resolves true when both closed in time.
   */
  close(): Promise<boolean>;
}

/**
 * Assembles the review runtime from the operator's configuration, the one place an app does:
 * the operator policy, the clone cache, the sandbox engine (probed and selected under the sandbox
 * mode, then audited), the install hooks' proxy and cache, and the engine's health. What was
 * started is closed again when a later step fails.
 *
 * @throws AppError `CONFIG_INVALID` for a bad policy file or sandbox mode; `SANDBOX_UNAVAILABLE`
 * when mode `require` finds no engine that proves isolation.
 */
export async function createReviewRuntime(config: RuntimeConfig, logger: Logger, options: ReviewRuntimeOptions): Promise<ReviewRuntime> {
  const operator = await loadOperatorPolicy(config);
  const cache = await openCloneCache(config, options.scrubber, options.allowedProtocols);
  const { selection } = await prepareSandbox(sandboxSetup(config, operator));
  if (selection.warning !== null) logger.warn({ engine: selection.engine.name }, selection.warning);
  const engine = auditedEngine(selection.engine, logger, options.onRun);
  const caBundle = config.NODE_EXTRA_CA_CERTS ?? config.SSL_CERT_FILE ?? DEFAULT_CA_BUNDLE;
  const installHooks = await openInstallHooks({ operator, engine, caBundle, logger }).catch(async (err: unknown) => {
    await engine.close();
    throw err;
  });
  const close = createCloser(
    [
      ["install hooks", () => installHooks.close()],
      ["engine", () => engine.close()],
    ],
    logger,
  );
  const health = createSandboxHealth(engine, { timeoutMs: SANDBOX_HEALTH_TIMEOUT_MS, maxAgeMs: SANDBOX_HEALTH_MAX_AGE_MS, logger });
  return { cache, engine, operator, health, close, ...(installHooks.runtime === undefined ? {} : { installHooks: installHooks.runtime }) };
}
