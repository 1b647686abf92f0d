import { constants } from "node:fs";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { FindingsLimits } from "@reviewbot/policy/operator-policy";
import type { Finding } from "@reviewbot/review/findings/finding";
import { formatBytes } from "@reviewbot/review/findings/format-bytes";
import { parseUnderBudget } from "@reviewbot/review/findings/parse-under-budget";

/** What one `sarif-input` file gave: its findings, or why it was not read. */
export type SarifInputOutcome =
  | { readonly file: string; readonly read: true; readonly findings: number; readonly problems: readonly string[] }
  | { readonly file: string; readonly read: false; readonly problem: string };

export interface SarifInputs {
  /** On repository paths, sanitised, each named for its run's tool (`CodeQL`, `Semgrep-OSS`). */
  readonly findings: readonly Finding[];
  readonly outcomes: readonly SarifInputOutcome[];
}

/** The name a finding gets when its run names no tool that can be a helper name. */
const FALLBACK_SOURCE = "sarif-input";

/**
 * Reads the code scanners' SARIF files an earlier step wrote (input `sarif-input`). Untrusted
 * bytes: the step may have run the PR's code, which may also have left a symbolic link, a FIFO or
 * a huge file at the path. Each file must be a regular file inside GITHUB_WORKSPACE, reached
 * without a symbolic link at its last component (`O_NOFOLLOW`) and, as opened, still inside it
 * (the opened descriptor's own path, `/proc/self/fd`, so no directory swapped in between can lead
 * out); at most `findings.structuredOutputBytes`. It is parsed by the helpers' SARIF parser under
 * the same budget (`parseUnderBudget`: a process of its own, bounded heap and time, at most
 * `findings.perHelper` findings) with paths mapped into the repository as a helper's are
 * (`mapFindingPath`, the workspace standing for the mount point: an absolute path or `file://` URI
 * elsewhere, or a `..` out, is a problem, never a finding). A file that cannot be read is an
 * outcome saying why, never an exception: the review goes on without it.
 */
export async function readSarifInputs(
  files: readonly string[],
  run: { readonly workspace: string | undefined; readonly findings: FindingsLimits; readonly secrets: readonly string[] },
): Promise<SarifInputs> {
  const findings: Finding[] = [];
  const outcomes: SarifInputOutcome[] = [];
  for (const file of files) {
    const notRead = (problem: string) => outcomes.push({ file, read: false, problem });
    if (run.workspace === undefined || !isAbsolute(run.workspace)) {
      notRead("GITHUB_WORKSPACE is not set to an absolute path");
      continue;
    }
    const bytes = await readConfined(run.workspace, file, run.findings.structuredOutputBytes);
    if (typeof bytes === "string") {
      notRead(bytes);
      continue;
    }
    const request = {
      format: "sarif" as const,
      output: bytes,
      helper: FALLBACK_SOURCE,
      mountPoint: resolve(run.workspace),
      cwd: ".",
      secrets: run.secrets,
      maxFindings: run.findings.perHelper,
      toolAsSource: true,
    };
    const parsed = await parseUnderBudget(request, { timeoutMs: run.findings.parseSeconds * 1000, memoryBytes: run.findings.parseMemoryBytes });
    if (!parsed.ok) {
      notRead(parsed.reason);
      continue;
    }
    const { value } = parsed;
    // Nothing read and a problem: the file is not SARIF (not JSON, no `runs`), or no result could be used.
    const [first] = value.problems;
    if (value.findings.length === 0 && first !== undefined) {
      notRead(first);
      continue;
    }
    findings.push(...value.findings);
    const problems =
      value.dropped === 0
        ? value.problems
        : [...value.problems, `${String(value.dropped)} findings past the cap of ${String(run.findings.perHelper)} not kept`];
    outcomes.push({ file, read: true, findings: value.findings.length, problems });
  }
  return { findings, outcomes };
}

/** The file's bytes, or why they were not read. */
async function readConfined(workspace: string, file: string, maxBytes: number): Promise<Uint8Array | string> {
  const path = resolve(workspace, file);
  if (!inside(resolve(workspace), path)) return "is outside GITHUB_WORKSPACE";
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO left at the path must not wait for a writer.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return openProblem(error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return "is not a regular file";
    if (stat.size > maxBytes) return `is ${formatBytes(stat.size)}, more than the ${formatBytes(maxBytes)} cap (findings.structuredOutputBytes)`;
    if (!inside(await realpath(workspace), await openedPath(handle, path))) return "leads outside GITHUB_WORKSPACE through a symbolic link";
    // One byte more than the cap: a file that grew since fstat is still refused, never cut.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) return `grew past the ${formatBytes(maxBytes)} cap while it was read`;
    }
    return length === 0 ? "is empty" : buffer.subarray(0, length);
  } catch (error) {
    return `could not be read (${errorCode(error)})`;
  } finally {
    await handle.close();
  }
}

// Where the descriptor really is: Linux names it in /proc; elsewhere the path resolved now (weaker).
async function openedPath(handle: FileHandle, path: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${String(handle.fd)}`);
  } catch {
    return realpath(path);
  }
}

function inside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest !== "" && !rest.startsWith("..") && !isAbsolute(rest) && join(root, rest) === path;
}

function openProblem(error: unknown): string {
  const code = errorCode(error);
  if (code === "ENOENT") return "does not exist (did the step that writes it run?)";
  if (code === "ELOOP") return "is a symbolic link";
  return `could not be opened (${code})`;
}

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "unknown error";
}
