import { spawn } from "node:child_process";
import { AppError } from "@reviewbot/core/errors";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { gitArgv, gitEnvironment, type GitEnvironmentOptions } from "./git-environment.js";

/** Everything a git call needs that does not change from call to call. */
export interface GitContext extends GitEnvironmentOptions {
  /** A directory of ours to run git in; git never discovers a repository from it. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Removes registered tokens from any stderr that ends up in an error message. */
  readonly scrubber?: SecretScrubber;
}

export interface GitCallOptions {
  /** Extra variables for this call only (GIT_INDEX_FILE, askpass). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (merge-base exits 1 for "none"). */
  readonly okExitCodes?: readonly number[];
  /** Buffered stdout cap; past it the process is killed and the call fails. */
  readonly maxOutputBytes?: number;
  /** Streams stdout instead of buffering it; return "stop" to kill git and finish early. */
  readonly onStdout?: (chunk: Buffer) => "stop" | undefined;
  readonly input?: string | Buffer;
  /** A work tree for commands that write files (checkout-index). */
  readonly workTree?: string;
}

export interface GitResult {
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stopped: boolean;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_KEPT = 4096;
const MISSING_REF = /couldn't find remote ref|not our ref|no such remote ref|unknown revision|bad object|not a valid object name|invalid object name/i;
const MISSING_REPO = /does not appear to be a git repository|repository .* not found/i;

/**
 * Runs one hardened git command: argv array (no shell), a fresh environment, the process group
 * SIGKILLed at the deadline, stdout capped or streamed. Failures become AppErrors whose message
 * carries a scrubbed excerpt of stderr.
 */
export function runGit(context: GitContext, gitDir: string, args: readonly string[], options: GitCallOptions = {}): Promise<GitResult> {
  const argv = gitArgv(gitDir, args, options.workTree);
  const child = spawn("git", argv, {
    cwd: context.cwd,
    env: { ...gitEnvironment(context), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const killGroup = (): void => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  };
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const chunks: Buffer[] = [];
  let outputBytes = 0;
  let stderr = "";
  let stopped = false;
  let overflow = false;
  let timedOut = false;

  child.stdout.on("data", (chunk: Buffer) => {
    if (stopped || overflow) return;
    if (options.onStdout !== undefined) {
      if (options.onStdout(chunk) === "stop") {
        stopped = true;
        killGroup();
      }
      return;
    }
    outputBytes += chunk.length;
    if (outputBytes > maxOutput) {
      overflow = true;
      killGroup();
      return;
    }
    chunks.push(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
  });
  child.stdin.on("error", () => undefined);
  child.stdin.end(options.input);
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, context.timeoutMs);

  return new Promise<GitResult>((resolve, reject) => {
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new AppError("GIT_FAILED", `git ${args[0] ?? ""} could not start: ${err.message}`, { cause: err }));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      killGroup();
      const exitCode = code ?? -1;
      const command = `git ${args[0] ?? ""}`;
      const excerpt = context.scrubber?.scrub(stderr.trim()) ?? stderr.trim();
      if (timedOut) {
        reject(new AppError("GIT_TIMEOUT", `${command} exceeded its ${context.timeoutMs} ms deadline`));
      } else if (overflow) {
        reject(new AppError("GIT_FAILED", `${command} printed more than ${maxOutput} bytes`));
      } else if (stopped || exitCode === 0 || options.okExitCodes?.includes(exitCode) === true) {
        resolve({ exitCode, stdout: Buffer.concat(chunks), stopped });
      } else {
        reject(gitFailure(command, exitCode, excerpt));
      }
    });
  });
}

/**
 * A failed git call as an AppError: the message keeps git's first `fatal:`/`error:` line (one line,
 * for a CLI or a check run); the whole scrubbed stderr goes into the details, for the log.
 */
function gitFailure(command: string, exitCode: number, stderr: string): AppError {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const headline = lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? "no error output";
  const code = MISSING_REPO.test(stderr) ? "REPO_NOT_FOUND" : MISSING_REF.test(stderr) ? "REF_NOT_FOUND" : "GIT_FAILED";
  return new AppError(code, `${command} failed (exit ${exitCode}): ${headline}`, { details: { exitCode, stderr } });
}

/**
 * The commit `ref` names in `gitDir`.
 *
 * @throws AppError from runGit when it names no commit.
 */
export async function resolveCommit(context: GitContext, gitDir: string, ref: string): Promise<string> {
  const result = await runGit(context, gitDir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  return result.stdout.toString("utf8").trim();
}
