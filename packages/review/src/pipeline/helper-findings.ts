import { SANDBOX_WORKTREE } from "@reviewbot/policy/helper-command";
import type { OutputFormat } from "@reviewbot/policy/helper-spec";
import type { HelperLimits } from "@reviewbot/policy/limit-narrowing";
import type { FindingsLimits } from "@reviewbot/policy/operator-policy";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import type { Finding } from "../findings/finding.js";
import { formatBytes } from "../findings/format-bytes.js";
import { parseUnderBudget } from "../findings/parse-under-budget.js";

/**
 * Formats whose output is one document (a JSON value, an XML tree): parsed whole, or not at all.
 * A cut document is not read: a prefix of it is not what the tool said.
 */
export const DOCUMENT_FORMATS: ReadonlySet<OutputFormat> = new Set(["sarif", "checkstyle", "rdjson", "eslint-json", "ruff-json"]);

/** The output cap of a helper's sandbox: a document format gets the larger `structuredOutputBytes`. */
export function outputCap(format: OutputFormat, limits: Pick<HelperLimits, "outputBytes">, findings: Pick<FindingsLimits, "structuredOutputBytes">): number {
  return DOCUMENT_FORMATS.has(format) ? Math.max(limits.outputBytes, findings.structuredOutputBytes) : limits.outputBytes;
}

/** What a helper's stdout gave: findings, problems, and the line for the review's errors when not all of it was read. */
export interface HelperFindings {
  readonly findings: readonly Finding[];
  readonly problems: readonly string[];
  readonly error: string | null;
}

const NONE: HelperFindings = { findings: [], problems: [], error: null };

/**
 * Reads a helper's stdout into findings under the operator's findings limits: a document format
 * whose output was cut is refused (never parsed truncated); line formats lose the cut last line;
 * the rest is parsed off the event loop under the parse budget (see `parseUnderBudget`), keeping
 * at most `perHelper` findings. Output that could not be read, and findings past the cap, give
 * `error`, one line the review lists with its infrastructure failures.
 */
export async function readHelperFindings(
  helper: ResolvedHelper,
  result: SandboxResult,
  run: { readonly findings: FindingsLimits; readonly secrets: readonly string[]; readonly signal?: AbortSignal | undefined },
): Promise<HelperFindings> {
  if (helper.format === "text" || result.cancelled || result.stdout.length === 0) return NONE;
  const limits = run.findings;
  if (result.outputTruncated && DOCUMENT_FORMATS.has(helper.format)) {
    const cap = formatBytes(outputCap(helper.format, helper.limits, limits));
    const error = `findings not parsed: the output passed the ${cap} output cap (findings.structuredOutputBytes), and ${helper.format} is read whole or not at all`;
    return { findings: [], problems: [error], error };
  }
  // Only whole lines of a cut output: the last one stops mid-way.
  const output = result.outputTruncated ? result.stdout.subarray(0, result.stdout.lastIndexOf(0x0a) + 1) : result.stdout;
  const request = {
    format: helper.format,
    output,
    helper: helper.name,
    severity: helper.severity,
    mountPoint: SANDBOX_WORKTREE,
    cwd: helper.cwd,
    secrets: run.secrets,
    maxFindings: limits.perHelper,
  };
  const parsed = await parseUnderBudget(request, { timeoutMs: limits.parseSeconds * 1000, memoryBytes: limits.parseMemoryBytes }, run.signal);
  if (!parsed.ok) return { findings: [], problems: [parsed.reason], error: parsed.reason };
  const { findings, problems, dropped } = parsed.value;
  if (dropped === 0) return { findings, problems, error: null };
  const error = `${String(dropped)} findings past the cap of ${String(limits.perHelper)} per helper (findings.perHelper) not kept`;
  return { findings, problems: [...problems, error], error };
}
