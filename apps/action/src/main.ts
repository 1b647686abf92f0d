import { join } from "node:path";
import { AppError, isAppError } from "@reviewbot/core/errors";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { inProcessAiReviewer } from "@reviewbot/review/ai/in-process-ai-reviewer";
import { decideActionEvent } from "./action-event.js";
import { readActionInput } from "./action-input.js";
import { openActionRuntime } from "./action-runtime.js";
import { loadActionSettings } from "./action-settings.js";
import { prepareHelperImages, runnerDockerSocket } from "./prepare-helper-images.js";
import { publishResults } from "./publish/publish-results.js";
import { readEventPayload } from "./read-event-payload.js";
import { readPullRequest } from "./read-pull-request.js";
import { reviewActionPull } from "./review-action-pull.js";
import { readRunnerEnv } from "./runner-env.js";
import { readSarifInputs } from "./read-sarif-inputs.js";
import { sarifInputNotes, sarifInputWarnings } from "./sarif-input-report.js";

/** The AI review starts no model call later than this after the run started (the CLI's default). */
const REVIEW_DEADLINE_MS = 20 * 60 * 1000;
const SECRET_INPUTS = ["llm-api-key", "github-token"] as const;

/** Every secret the run holds, scrubbed from whatever it prints, its last error included. */
const scrubber = new SecretScrubber();
const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Composition root of the GitHub Action (issue 24): reads the runner's env and inputs, reviews, publishes. */
async function main(): Promise<number> {
  const started = Date.now();
  // Before anything can print or send them: masked in the runner's log, scrubbed from ours.
  for (const name of SECRET_INPUTS) {
    const secret = readActionInput(process.env, name);
    if (secret === undefined) continue;
    scrubber.register(secret);
    // A value with a line break would end the command early: such a value is refused below anyway.
    if (/^[\x21-\x7e]+$/.test(secret)) write(`::add-mask::${secret}`);
  }
  const settings = loadActionSettings(process.env);
  const runner = readRunnerEnv(process.env);
  const logger = createLogger({ name: "reviewbot-action", level: "info", scrubber });
  const event = decideActionEvent(runner.GITHUB_EVENT_NAME, await readEventPayload(runner.GITHUB_EVENT_PATH), settings.pullRequest);
  if (event.kind === "skip") {
    write(`reviewbot: nothing to review: ${event.reason}`);
    return 0;
  }
  const access = { apiUrl: runner.GITHUB_API_URL, token: settings.token, repository: runner.GITHUB_REPOSITORY };
  const pull = await readPullRequest(access, event.pullNumber);
  if (!pull.open) {
    write(`reviewbot: nothing to review: pull request #${String(pull.number)} is closed`);
    return 0;
  }
  const headSha = event.headSha ?? pull.headSha;
  const images = await prepareHelperImages(settings, { runnerTemp: runner.RUNNER_TEMP, dockerSocket: runnerDockerSocket(process.env) }, logger);
  const runtime = await openActionRuntime(settings, { runnerTemp: runner.RUNNER_TEMP, serverUrl: runner.GITHUB_SERVER_URL, images }, logger, scrubber);
  if (runtime.refusal !== null) write(`reviewbot: helpers are refused (sandbox: ${settings.sandbox}): ${runtime.refusal}`);
  // Data, not code: read whether or not helpers may run; a file that cannot be read is a warning.
  const scanned = await readSarifInputs(settings.sarifInput, {
    workspace: runner.GITHUB_WORKSPACE,
    findings: runtime.operator.findings,
    secrets: [settings.token],
  });
  for (const line of sarifInputWarnings(scanned.outcomes)) write(scrubber.scrub(line));
  const ai = inProcessAiReviewer(settings.llm, { scrubber, logger, deadline: started + REVIEW_DEADLINE_MS });
  let exitCode: number;
  let closed: boolean;
  try {
    const report = await reviewActionPull(
      {
        remote: `${runner.GITHUB_SERVER_URL}/${runner.GITHUB_REPOSITORY}.git`,
        token: settings.token,
        pull,
        headSha,
        filterMode: settings.filterMode,
        scanned: scanned.findings,
      },
      runtime,
      { logger, ...(ai === undefined ? {} : { ai }) },
    );
    const [owner = "", repo = ""] = runner.GITHUB_REPOSITORY.split("/");
    const outcome = await publishResults(
      report,
      {
        apiUrl: runner.GITHUB_API_URL,
        serverUrl: runner.GITHUB_SERVER_URL,
        token: settings.token,
        owner,
        repo,
        pullNumber: pull.number,
        headSha,
        baseSha: pull.baseSha,
      },
      {
        failLevel: settings.failLevel,
        files: {
          sarif: settings.sarifFile ?? join(runner.RUNNER_TEMP, "reviewbot.sarif"),
          ...(runner.GITHUB_STEP_SUMMARY === undefined ? {} : { stepSummary: runner.GITHUB_STEP_SUMMARY }),
          ...(runner.GITHUB_OUTPUT === undefined ? {} : { output: runner.GITHUB_OUTPUT }),
          ...(settings.report === undefined ? {} : { report: settings.report }),
        },
        logger,
        notes: sarifInputNotes(scanned.outcomes),
        write: (line) => {
          write(scrubber.scrub(line));
        },
      },
    );
    exitCode = outcome.exitCode;
  } finally {
    closed = await runtime.close();
  }
  if (!closed) throw new AppError("SANDBOX_UNAVAILABLE", "the sandboxes did not shut down cleanly");
  return exitCode;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = isAppError(err) ? `${err.code}: ${err.message}` : String(err);
    // One line, and never a workflow command: a message cannot start with `::` after this prefix.
    process.stderr.write(`reviewbot: ${scrubber.scrub(message.split("\n", 1)[0] ?? "")}\n`);
    process.exitCode = 2;
  },
);
