import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { RuntimeConfig } from "./runtime-config.js";

/**
 * The clone cache the operator configured, initialised (leftovers of an earlier process collected).
 * `allowedProtocols` is the app's decision (the CLI accepts https and local paths; a worker only
 * its one source's protocol).
 */
export async function openCloneCache(config: RuntimeConfig, scrubber: SecretScrubber, allowedProtocols: readonly string[]): Promise<CloneCache> {
  const cache = new CloneCache({
    root: config.REVIEWBOT_CACHE_DIR,
    allowedProtocols,
    gitTimeoutMs: config.REVIEWBOT_GIT_TIMEOUT_MS,
    lockWaitMs: config.REVIEWBOT_LOCK_WAIT_MS,
    limits: {
      maxFiles: config.REVIEWBOT_MAX_FILES,
      maxTotalBytes: config.REVIEWBOT_MAX_TOTAL_BYTES,
      maxPathDepth: config.REVIEWBOT_MAX_PATH_DEPTH,
      maxPathBytes: config.REVIEWBOT_MAX_PATH_BYTES,
    },
    scrubber,
  });
  await cache.init();
  return cache;
}
