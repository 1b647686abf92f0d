import { join } from "node:path";
import type { Logger } from "@reviewbot/core/logger";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import { DepsCache } from "@reviewbot/sandbox/deps-cache";
import { RegistryProxy } from "@reviewbot/sandbox/registry-proxy";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";

/** The CA bundle used when the environment names none (Debian's). */
export const DEFAULT_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

export interface InstallHooksOptions {
  readonly operator: OperatorPolicy;
  /** The selected engine: install hooks run only on one that accepts mounts (`installSupport`). */
  readonly engine: SandboxEngine;
  /** The host's CA bundle (outbound HTTPS here is TLS-intercepted by a proxy the host trusts). */
  readonly caBundle: string;
  readonly logger: Logger;
}

export interface OpenedInstallHooks {
  /** Hand to `reviewPullRequest` as `installHooks`; absent when install hooks cannot run here. */
  readonly runtime?: InstallHookRuntime;
  close(): Promise<void>;
}

/**
 * Starts what install hooks need on this worker when the operator turned them on
 * (`installHooks: "registry"`) and the engine runs installs (a container engine that gives each
 * its own uid, `runsInstalls`): the registry
 * proxy on `<engine state dir>/registry/proxy.sock`, allowing the operator's `installRegistries`
 * on port 443, and the deps cache in `<engine state dir>/deps` (mounts must lie under that
 * directory). Otherwise nothing starts, and the pipeline reports each install hook as not run
 * (fail closed).
 */
export async function openInstallHooks(options: InstallHooksOptions): Promise<OpenedInstallHooks> {
  const { operator, engine, logger } = options;
  if (operator.installHooks === "off") return { close: () => Promise.resolve() };
  const support = engine.installSupport;
  // An engine that cannot give an install a uid of its own refuses installs: nothing to start.
  if (support === undefined || !engine.runsInstalls) {
    logger.warn({ engine: engine.name, runsInstalls: engine.runsInstalls }, "install hooks need the container engine; they will not run");
    return { close: () => Promise.resolve() };
  }
  const log = logger.child({ component: "registry-proxy" });
  const proxy = await RegistryProxy.start({
    dir: join(support.stateDir, "registry"),
    allowedHosts: operator.installRegistries,
    caBundle: options.caBundle,
    onDecision: (decision) => {
      if (decision.allowed) log.debug(decision, "registry tunnel");
      else log.warn(decision, "registry proxy refused a connection");
    },
  });
  const cache = new DepsCache(join(support.stateDir, "deps"));
  try {
    await cache.init();
  } catch (err) {
    await proxy.close();
    throw err;
  }
  return { runtime: { registryDir: proxy.dir, cache, images: support }, close: () => proxy.close() };
}
