import type { InstallHookMode } from "@reviewbot/policy/operator-policy";
import type { ImageIdentity } from "@reviewbot/sandbox/sandbox-spec";
import type { DepsCache } from "@reviewbot/sandbox/deps-cache";

/**
 * What running install hooks needs on this worker: the registry proxy's directory (mounted into
 * install sandboxes), the deps cache, and the engine's image ids for the cache key. Built by the
 * review runtime only when the operator's `installHooks` is `registry` and the selected engine
 * accepts mounts (`@reviewbot/runtime/open-install-hooks`).
 */
export interface InstallHookRuntime {
  readonly registryDir: string;
  readonly cache: DepsCache;
  readonly images: ImageIdentity;
}

/** A review's install-hook settings, handed to each helper run. */
export interface InstallContext {
  readonly mode: InstallHookMode;
  /** The repository's remote: part of the cache key, so repositories never share installs. */
  readonly remote: string;
  readonly runtime?: InstallHookRuntime;
}
