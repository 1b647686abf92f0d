import type { Severity } from "@reviewbot/contracts/severity";
import type { SeverityMap } from "@reviewbot/policy/helper-spec";

/**
 * One problem a helper reported, in the shape every output format is parsed into. Lines and
 * columns are 1-based; `null` means the tool did not give one (a file-level finding has no line).
 * `path` is as the tool printed it until `mapFindingPath` turns it into a repository path.
 */
export interface Finding {
  readonly path: string;
  readonly line: number | null;
  readonly endLine: number | null;
  readonly column: number | null;
  readonly severity: Severity;
  readonly message: string;
  readonly rule: string | null;
  readonly helper: string;
}

/**
 * What a parser made of a helper's output. `problems` notes output that was malformed or could
 * not be used (a parser never throws on untrusted output); the findings it could read are kept.
 */
export interface ParseOutcome {
  readonly findings: Finding[];
  readonly problems: string[];
}

/** What every parser is told about the helper whose output it reads. */
export interface ParseContext {
  /** The helper's name, copied onto every finding. */
  readonly helper: string;
  /** The helper's `severity` map from `.ai/review-tools.json`, if it has one. */
  readonly severity?: SeverityMap | undefined;
  /**
   * SARIF only: each run's findings are named for the run's tool (`tool.driver.name` made a helper
   * name, see `sarifToolSource`) rather than for `helper`, which names those of a run whose tool
   * name cannot be one. For code scanners' SARIF files, where no helper of ours wrote the output.
   */
  readonly toolAsSource?: boolean | undefined;
}
