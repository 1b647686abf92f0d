#!/usr/bin/env node
import { parseArgs } from "node:util";
import { AppError, isAppError } from "@reviewbot/core/errors";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { CloneCache } from "@reviewbot/overlay/clone-cache";
import { checkoutCommand } from "./checkout-command.js";
import { loadCliConfig } from "./cli-config.js";

const USAGE = `usage: reviewbot checkout --repo <path-or-url> --base <ref> --head <ref> [--format text|json]

  checkout   fetch base and head into the clone cache, apply the trusted .ai/ overlay
             (the base commit's .ai/ replaces the PR's) and print the result and the diff
`;

/** Composition root of the CLI: reads env and argv, builds the clone cache, runs one command. */
async function main(argv: readonly string[]): Promise<number> {
  const config = loadCliConfig(process.env);
  const scrubber = new SecretScrubber();
  const logger = createLogger({ level: config.REVIEWBOT_LOG_LEVEL, scrubber });
  const { positionals, values } = parseCommandLine(argv);
  const [command] = positionals;
  if (command !== "checkout") throw new AppError("USAGE", command === undefined ? "no command given" : `unknown command "${command}"`);
  const cache = new CloneCache({
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
  await cache.init();
  const output = await checkoutCommand(cache, { ...requireRefs(values), format: parseFormat(values.format) }, logger);
  process.stdout.write(output);
  return 0;
}

function parseCommandLine(argv: readonly string[]): ReturnType<typeof parse> {
  try {
    return parse(argv);
  } catch (err) {
    throw new AppError("USAGE", err instanceof Error ? err.message : String(err));
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      repo: { type: "string" },
      base: { type: "string" },
      head: { type: "string" },
      format: { type: "string", default: "text" },
    },
  });
}

function requireRefs(values: { repo?: string; base?: string; head?: string }): { repo: string; base: string; head: string } {
  const { repo, base, head } = values;
  if (repo === undefined || base === undefined || head === undefined) {
    throw new AppError("USAGE", "--repo, --base and --head are required");
  }
  return { repo, base, head };
}

function parseFormat(format: string | undefined): "text" | "json" {
  if (format === "text" || format === "json") return format;
  throw new AppError("USAGE", `--format must be text or json, not "${String(format)}"`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = isAppError(err) ? `${err.code}: ${err.message}` : String(err);
    process.stderr.write(`reviewbot: ${message}\n`);
    if (isAppError(err) && err.code === "USAGE") process.stderr.write(USAGE);
    process.exitCode = 2;
  },
);
