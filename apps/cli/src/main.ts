#!/usr/bin/env node
import { readFile, writeFile } from "node:fs/promises";
import { constants } from "node:os";
import { AppError, isAppError } from "@reviewbot/core/errors";
import { createLogger, type Logger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { toLlmSettings } from "@reviewbot/llm/llm-settings";
import { inProcessAiReviewer } from "@reviewbot/review/ai/in-process-ai-reviewer";
import { createReviewRuntime, type ReviewRuntime } from "@reviewbot/runtime/create-review-runtime";
import { loadOperatorPolicy } from "@reviewbot/runtime/load-operator-policy";
import { openCloneCache } from "@reviewbot/runtime/open-clone-cache";
import { sandboxSetup } from "@reviewbot/runtime/sandbox-setup";
import { checkoutCommand } from "./checkout-command.js";
import { loadCliConfig, type CliConfig } from "./cli-config.js";
import { parseCommandLine, USAGE, type EngineChoice } from "./command-line.js";
import { doctorCommand } from "./doctor-command.js";
import { evalCommand } from "./eval-command.js";
import { fleetCommand } from "./fleet-command.js";
import { llmDoctorCommand } from "./llm-doctor-command.js";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { reviewCommand } from "./review-command.js";
import { workerCredentialCommand } from "./worker-credential-command.js";
import { submitReview } from "./submit-review.js";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** The CLI reviews remote repositories over https and local ones by path. */
const CLI_PROTOCOLS = ["https", "file"];

/** Composition root of the CLI: reads env and argv, builds what the command needs, runs it. */
async function main(argv: readonly string[]): Promise<number> {
  const started = Date.now();
  const command = parseCommandLine(argv);
  if (command.name === "help") {
    process.stdout.write(command.text);
    return 0;
  }
  if (command.name === "version") {
    const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    process.stdout.write(`reviewbot ${version}\n`);
    return 0;
  }
  const config = loadCliConfig(process.env);
  const scrubber = new SecretScrubber();
  const llm = toLlmSettings(config);
  // Registered before any client holds it: whatever is logged, printed or sent to the model is scrubbed of it.
  if (llm.enabled && llm.apiKey !== "") scrubber.register(llm.apiKey);
  const logger = createLogger({ name: "reviewbot-cli", level: config.REVIEWBOT_LOG_LEVEL, scrubber });
  if (command.name === "submit") {
    if (config.redis === undefined)
      throw new AppError("CONFIG_INVALID", "REDIS_URL: required by submit, or REDIS_SENTINELS or REDIS_CLUSTER_NODES (the api's Redis user)");
    if (config.REVIEWBOT_WEBHOOK_SECRET === undefined)
      throw new AppError("CONFIG_INVALID", "REVIEWBOT_WEBHOOK_SECRET: required by submit (jobs are sealed as the api seals them)");
    const seal = QueueSeal.fromSecret(config.REVIEWBOT_WEBHOOK_SECRET);
    const { job, outcome } = await submitReview(command.args, config.redis, redisKeyspace(config.REVIEWBOT_REDIS_PREFIX), seal);
    process.stdout.write(`${JSON.stringify({ ...outcome, headSha: job.headSha, baseSha: job.baseSha })}\n`);
    return 0;
  }
  if (command.name === "worker-credential") {
    process.stdout.write(await workerCredentialCommand(command.args));
    return 0;
  }
  if (command.name === "fleet") {
    return fleetCommand(command.args, config, (text) => process.stdout.write(text));
  }
  if (command.name === "llm-doctor") {
    const outcome = await llmDoctorCommand(llm);
    process.stdout.write(scrubber.scrub(outcome.output));
    return outcome.exitCode;
  }
  if (command.name === "doctor") {
    const outcome = await doctorCommand(sandboxSetup(config, await loadOperatorPolicy(config)));
    process.stdout.write(outcome.output);
    return outcome.exitCode;
  }
  if (command.name === "checkout") {
    const cache = await openCloneCache(config, scrubber, CLI_PROTOCOLS);
    process.stdout.write(await checkoutCommand(cache, command.args, logger));
    return 0;
  }
  const runtime = await createReviewRuntime(withEngine(config, command.engine), logger, { scrubber, allowedProtocols: CLI_PROTOCOLS });
  stopSandboxesOnSignal(runtime, logger);
  const { cache, engine, operator, installHooks } = runtime;
  const ai = inProcessAiReviewer(llm, { scrubber, logger, deadline: started + config.REVIEWBOT_REVIEW_DEADLINE_MS });
  let exitCode: number;
  let closed: boolean;
  try {
    const colour = command.output === undefined && process.stdout.isTTY;
    const hooks = installHooks === undefined ? {} : { installHooks };
    const outcome =
      command.name === "eval"
        ? await evalCommand(command.args, {
            ...{ cache, engine, operator, logger, llm, scrubber, ...hooks },
            gitTimeoutMs: config.REVIEWBOT_GIT_TIMEOUT_MS,
            reviewDeadlineMs: config.REVIEWBOT_REVIEW_DEADLINE_MS,
            ...(config.REVIEWBOT_EVAL_JUDGE_MODEL === undefined ? {} : { judgeModel: config.REVIEWBOT_EVAL_JUDGE_MODEL }),
          })
        : await reviewCommand(command.args, { cache, engine, operator, logger, colour, ...hooks, ...(ai === undefined ? {} : { ai }) });
    // The endpoint holds the key and writes the model's answers: the report is scrubbed of it by value.
    const output = scrubber.scrub(outcome.output);
    if (command.output === undefined) process.stdout.write(output);
    else await writeFile(command.output, output);
    exitCode = outcome.exitCode;
  } finally {
    closed = await runtime.close();
  }
  // Sandboxes that could not be stopped make the run fail as an engine that threw did (the step is logged).
  if (!closed) throw new AppError("SANDBOX_UNAVAILABLE", "the sandboxes or the install hooks' proxy did not shut down cleanly");
  return exitCode;
}

/**
 * Ctrl-C or SIGTERM mid-review: kill and remove every sandbox still running (and stop the install
 * hooks' proxy) before exiting with 128 + the signal's number (the clone cache collects the
 * interrupted job's work tree later).
 */
function stopSandboxesOnSignal(runtime: ReviewRuntime, logger: Logger): void {
  const stop = (signal: "SIGINT" | "SIGTERM"): void => {
    logger.warn({ signal }, "interrupted: stopping sandboxes");
    void runtime.close().finally(() => process.exit(128 + constants.signals[signal]));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** `--engine` overrides REVIEWBOT_ENGINE; `none` is only the explicit escape hatch of mode off. */
function withEngine(config: CliConfig, engine: EngineChoice | undefined): CliConfig {
  if (engine === undefined) return config;
  if (engine === "none") {
    if (config.REVIEWBOT_SANDBOX !== "off") {
      throw new AppError("USAGE", "--engine none runs helpers unsandboxed; it needs REVIEWBOT_SANDBOX=off");
    }
    return config;
  }
  return { ...config, REVIEWBOT_ENGINE: engine };
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = isAppError(err) ? `${err.code}: ${err.message}` : String(err);
    // One line: details (a tool's whole stderr) belong in the log, not in the reason.
    process.stderr.write(`reviewbot: ${message.split("\n", 1)[0] ?? ""}\n`);
    if (err instanceof AppError && err.code === "USAGE") process.stderr.write(USAGE);
    process.exitCode = 2;
  },
);
