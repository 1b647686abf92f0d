import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { createReviewRuntime } from "@reviewbot/runtime/create-review-runtime";
import { loadOperatorPolicy } from "@reviewbot/runtime/load-operator-policy";
import { openCloneCache } from "@reviewbot/runtime/open-clone-cache";
import { RuntimeConfig } from "@reviewbot/runtime/runtime-config";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import type { ActionSettings } from "./action-settings.js";
import type { HelperImages } from "./prepare-helper-images.js";
import { refusedEngine } from "./refused-engine.js";

export interface ActionRuntime {
  readonly cache: CloneCache;
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  readonly installHooks?: InstallHookRuntime;
  /** Why helpers are refused (mode `require`, no engine proved isolation, or a refused image cache); null when they run. */
  readonly refusal: string | null;
  close(): Promise<boolean>;
}

/**
 * The review runtime of one action run, as `reviewbot review` builds it (packages/runtime), with
 * the clone cache under `RUNNER_TEMP` and fetching only over the git host's protocol. Under mode
 * `require` with no engine that proves isolation the run does not fail: helpers are refused (the
 * refusal says why) and the AI review, which executes no PR code, still runs. Helper images the
 * action prepared in the runner's Docker make `auto` choose Docker; an image cache that failed its
 * check refuses helpers in any mode but `off`.
 */
export async function openActionRuntime(
  settings: ActionSettings,
  where: { readonly runnerTemp: string; readonly serverUrl: string; readonly images: HelperImages },
  logger: Logger,
  scrubber: SecretScrubber,
): Promise<ActionRuntime> {
  const { images } = where;
  const dockerSocket = images.kind === "refused" ? undefined : images.dockerSocket;
  const config = RuntimeConfig.parse({
    REVIEWBOT_CACHE_DIR: join(where.runnerTemp, "reviewbot"),
    REVIEWBOT_SANDBOX: settings.sandbox,
    REVIEWBOT_ENGINE: images.kind === "ready" && settings.engine === "auto" ? "docker" : settings.engine,
    ...(dockerSocket === undefined ? {} : { REVIEWBOT_DOCKER_SOCKET: dockerSocket }),
    // The bundle is `dist-action/index.js` of the action's repository, which holds infra/.
    REVIEWBOT_CONTAINERS_CONF: fileURLToPath(new URL("../infra/podman/containers.conf", import.meta.url)),
  });
  const allowedProtocols = [new URL(where.serverUrl).protocol.replace(/:$/, "")];
  const refuse = async (reason: string): Promise<ActionRuntime> => {
    const cache = await openCloneCache(config, scrubber, allowedProtocols);
    const operator = await loadOperatorPolicy(config);
    return { cache, operator, engine: refusedEngine(reason), refusal: reason, close: () => Promise.resolve(true) };
  };
  if (images.kind === "refused" && settings.sandbox !== "off") {
    logger.warn({ reason: images.reason }, "the image cache failed its check: helpers are refused, the AI review still runs");
    return refuse(images.reason);
  }
  try {
    const runtime = await createReviewRuntime(config, logger, { scrubber, allowedProtocols });
    return { ...runtime, refusal: null };
  } catch (err) {
    if (!isAppError(err) || err.code !== "SANDBOX_UNAVAILABLE") throw err;
    logger.warn({ err }, "no sandbox engine proved isolation: helpers are refused, the AI review still runs");
    const reason = err.message.split("\n", 1)[0] ?? "no sandbox engine proved isolation";
    return refuse(images.kind === "missing" ? `${reason} (${images.reason})` : reason);
  }
}
