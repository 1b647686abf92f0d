import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The committed bundle `action.yml` runs (`pnpm --filter @reviewbot/action run bundle` writes it). */
export const ACTION_BUNDLE = fileURLToPath(new URL("../../dist-action/index.js", import.meta.url));

const execFileAsync = promisify(execFile);

export interface ActionRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the run appended to `$GITHUB_STEP_SUMMARY` and `$GITHUB_OUTPUT`. */
  readonly summary: string;
  readonly output: string;
}

export interface SimulatedRunner {
  /** A directory of its own for this run's event file, summary and output files. */
  readonly dir: string;
  readonly event: { readonly name: string; readonly payload: unknown };
  /** `INPUT_<NAME>` values by input name (`llm-api-key`), as the runner passes them. */
  readonly inputs: Readonly<Record<string, string>>;
  /** GITHUB_*, RUNNER_TEMP and the rest of the job's environment besides the event and the files. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * `node dist-action/index.js` as GitHub's runner starts a JavaScript action: GITHUB_ACTIONS, the
 * event name and payload file, the step summary and output files, and `INPUT_<NAME>` with the
 * name upper-cased and hyphens kept; nothing of the test's own environment but PATH and HOME
 * (unless `env` sets them).
 */
export async function runAction(runner: SimulatedRunner, timeoutMs = 120_000): Promise<ActionRun> {
  const eventPath = join(runner.dir, "event.json");
  const summaryPath = join(runner.dir, "step-summary.md");
  const outputPath = join(runner.dir, "github-output");
  await writeFile(eventPath, JSON.stringify(runner.event.payload));
  await writeFile(summaryPath, "");
  await writeFile(outputPath, "");
  const inputs = Object.fromEntries(Object.entries(runner.inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: runner.event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_OUTPUT: outputPath,
    ...runner.env,
    ...inputs,
  };
  let result: { status: number | null; stdout: string; stderr: string };
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [ACTION_BUNDLE], {
      env,
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    });
    result = { status: 0, stdout, stderr };
  } catch (err) {
    const exited = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof exited.code !== "number") throw err;
    result = { status: exited.code, stdout: exited.stdout ?? "", stderr: exited.stderr ?? "" };
  }
  return { ...result, summary: await readFile(summaryPath, "utf8"), output: await readFile(outputPath, "utf8") };
}
