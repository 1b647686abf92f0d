import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { SANDBOX_WORKTREE } from "@reviewbot/policy/helper-command";
import type { HelperImage } from "@reviewbot/policy/helper-image";
import type { HelperLimits } from "@reviewbot/policy/limit-narrowing";
import { buildSandboxEnv } from "@reviewbot/policy/sandbox-env";
import { sandboxLimits } from "@reviewbot/sandbox/policy-limits";
import { sanitiseText } from "../findings/sanitise-output.js";
import { helperOutcome } from "./helper-output.js";
import { engineArgv, type HelperRun } from "./helper-run.js";
import { missingProgramProblem } from "./missing-program-problem.js";
import type { ContextReport } from "./report.js";

const SCRIPT = ".ai/context-script";
const MAX_SKIP_FILES = 10_000;
const CONTEXT_TEXT = { maxBytes: 32 * 1024, maxLines: 400 } as const;

export interface ContextScriptRun extends HelperRun {
  /** The operator's default image and ceilings: the script is sandboxed like any helper. */
  readonly image: HelperImage;
  readonly limits: HelperLimits;
}

/**
 * Runs the base commit's `.ai/context-script`, when it is a regular executable file, with the PR as
 * JSON on stdin, by absolute path (the top-level `.ai/` the overlay wrote, as a helper's `.ai/`
 * command: docs/architecture.md, layer 2: helpers run only trusted code) from the worktree root. It
 * may print text, or JSON `{ "context"?: string, "skip_files"?: string[] }`. Its output is
 * untrusted data: sanitised, capped, and never executed or interpolated.
 */
export async function runContextScript(run: ContextScriptRun, pullRequest: unknown): Promise<ContextReport | null> {
  const info = await lstat(join(run.worktree, SCRIPT)).catch(() => null);
  if (info === null || !info.isFile() || (info.mode & 0o111) === 0) return null;
  const argv = [`${SANDBOX_WORKTREE}/${SCRIPT}`];
  const result = await run.engine.run({
    argv: engineArgv(argv, run),
    image: run.image.reference,
    worktree: run.worktree,
    cwd: ".",
    env: buildSandboxEnv({}),
    stdin: JSON.stringify(pullRequest),
    limits: sandboxLimits(run.limits),
    labels: { ...run.labels, helper: "context-script" },
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  });
  const { text, skipFiles } = interpret(result.stdout.toString("utf8"));
  const outcome = helperOutcome(result, 0);
  // A Python script in an image without Python used to fail with no reason given.
  const error = outcome === "failed" ? await missingProgramProblem(result, { ...run, argv, owner: "context-script" }) : null;
  return {
    text: sanitiseText(text, { ...CONTEXT_TEXT, secrets: run.secrets }).text,
    skipFiles: result.exitCode === 0 ? skipFiles : [],
    outcome,
    durationMs: result.durationMs,
    error,
  };
}

function interpret(output: string): { text: string; skipFiles: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(output);
  } catch {
    return { text: output, skipFiles: [] };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { text: output, skipFiles: [] };
  const record = json as Record<string, unknown>;
  const skip = Array.isArray(record.skip_files) ? record.skip_files : [];
  const skipFiles = skip.filter((entry): entry is string => typeof entry === "string" && entry.length <= 4096).slice(0, MAX_SKIP_FILES);
  return { text: typeof record.context === "string" ? record.context : "", skipFiles };
}
