#!/usr/bin/env node
import { AppError, isAppError } from "@reviewbot/core/errors";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { CloneCache } from "@reviewbot/overlay/clone-cache";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import { checkoutCommand } from "./checkout-command.js";
import { loadCliConfig, type CliConfig } from "./cli-config.js";
import { parseCommandLine, USAGE } from "./command-line.js";
import { doctorCommand } from "./doctor-command.js";
import { sandboxSetup } from "./sandbox-setup.js";

/** Composition root of the CLI: reads env and argv, builds what the command needs, runs it. */
async function main(argv: readonly string[]): Promise<number> {
  const config = loadCliConfig(process.env);
  const scrubber = new SecretScrubber();
  const logger = createLogger({ level: config.REVIEWBOT_LOG_LEVEL, scrubber });
  const command = parseCommandLine(argv);
  if (command.name === "doctor") {
    const outcome = await doctorCommand(sandboxSetup(config, parseOperatorPolicy({})));
    process.stdout.write(outcome.output);
    return outcome.exitCode;
  }
  const cache = cloneCache(config, scrubber);
  await cache.init();
  process.stdout.write(await checkoutCommand(cache, command.args, logger));
  return 0;
}

function cloneCache(config: CliConfig, scrubber: SecretScrubber): CloneCache {
  return new CloneCache({
    root: config.REVIEWBOT_CACHE_DIR,
    allowedProtocols: ["https", "file"],
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
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = isAppError(err) ? `${err.code}: ${err.message}` : String(err);
    process.stderr.write(`reviewbot: ${message}\n`);
    if (err instanceof AppError && err.code === "USAGE") process.stderr.write(USAGE);
    process.exitCode = 2;
  },
);
