import type { OutputFormat, SeverityMap } from "@reviewbot/policy/helper-spec";
import type { Finding } from "./finding.js";
import { MAX_PROBLEMS } from "./finding-collector.js";
import { mapFindingPath } from "./map-path.js";
import { parseFindings } from "./parse-findings.js";
import { sanitiseFinding } from "./sanitise-output.js";

/** One helper's output and what reading it needs: plain data, so that it can cross to the parse process. */
export interface ExtractRequest {
  readonly format: OutputFormat;
  /** The helper's stdout as the sandbox captured it (bytes), or already decoded. */
  readonly output: Uint8Array | string;
  readonly helper: string;
  readonly severity?: SeverityMap | undefined;
  /** Where the worktree is mounted in the sandbox (`/work`) and the helper's cwd. */
  readonly mountPoint: string;
  readonly cwd: string;
  /** Secret values scrubbed from every finding kept. */
  readonly secrets: readonly string[];
  /** The most findings kept; the rest are counted in `dropped`. */
  readonly maxFindings: number;
  /** SARIF only: name each run's findings for its tool (see `ParseContext.toolAsSource`). */
  readonly toolAsSource?: boolean;
}

/** Findings on repository paths, sanitised, at most `maxFindings` of them. */
export interface ExtractedFindings {
  readonly findings: Finding[];
  /** What the parser could not use, and findings whose path left the repository (at most 50, then a count). */
  readonly problems: string[];
  /** Findings past `maxFindings`, not kept. */
  readonly dropped: number;
}

/**
 * Everything the pipeline does with a helper's stdout, in one synchronous step: decode (invalid
 * UTF-8 replaced), parse by format, map each path to the repository (a path that leaves it is a
 * problem), keep the first `maxFindings`, and sanitise what is kept. Findings past the cap are
 * neither mapped nor sanitised: a flood costs the parse and a count. Runs in the parse process
 * (see `parseUnderBudget`), and anywhere a budget is not needed.
 */
export function extractFindings(request: ExtractRequest): ExtractedFindings {
  const text =
    typeof request.output === "string"
      ? request.output
      : Buffer.from(request.output.buffer, request.output.byteOffset, request.output.byteLength).toString("utf8");
  const parsed = parseFindings(request.format, text, { helper: request.helper, severity: request.severity, toolAsSource: request.toolAsSource });
  const problems = parsed.problems;
  const mapping = { mountPoint: request.mountPoint, cwd: request.cwd };
  const findings: Finding[] = [];
  let unmapped = 0;
  let dropped = 0;
  for (const finding of parsed.findings) {
    if (findings.length >= request.maxFindings) {
      dropped += 1;
      continue;
    }
    const mapped = mapFindingPath(finding.path, mapping);
    if (mapped.path !== null) findings.push(sanitiseFinding({ ...finding, path: mapped.path }, { secrets: request.secrets }));
    else if ((unmapped += 1) <= MAX_PROBLEMS) problems.push(mapped.problem);
  }
  if (unmapped > MAX_PROBLEMS) problems.push(`… and ${unmapped - MAX_PROBLEMS} more findings whose path could not be mapped`);
  return { findings, problems, dropped };
}
