import { quote } from "@reviewbot/policy/config-error";
import type { Severity } from "@reviewbot/contracts/severity";
import type { Finding, ParseContext, ParseOutcome } from "./finding.js";
import { MAX_PATH_LENGTH } from "./map-path.js";
import { resolveSeverity } from "./resolve-severity.js";
import { MAX_FINDING_INPUT } from "./sanitise-output.js";

/** The most problems one outcome lists; the rest are counted in a last note. */
export const MAX_PROBLEMS = 50;
/** The largest line or column accepted (a 32-bit signed int, as GitHub's API takes). */
export const MAX_POSITION = 2_147_483_647;

/** One finding as a parser read it from untrusted output: every field still to be checked. */
export interface RawFinding {
  readonly path: unknown;
  readonly line?: unknown;
  readonly endLine?: unknown;
  readonly column?: unknown;
  readonly message: unknown;
  readonly rule?: unknown;
  /** The tool's own name for the level (`warning`, `convention`, `INFO`), looked up in the severity map. */
  readonly toolLevel: string | null;
  /** The parser's translation of that level, used when the severity map has no entry. */
  readonly fallback: Severity;
  /** The finding's source when it is not the context's helper (a SARIF run's tool, `toolAsSource`). */
  readonly source?: string;
}

/** Accumulates the findings and problems of one parse; shared by every parser. */
export interface FindingCollector {
  /** Checks `raw` and keeps it, or notes why not; `where` locates it in the output (`results[3]`). */
  add(raw: RawFinding, where: string): void;
  problem(message: string): void;
  outcome(): ParseOutcome;
}

/** A collector for one helper's output. */
export function createFindingCollector(context: ParseContext): FindingCollector {
  const findings: Finding[] = [];
  const problems: string[] = [];
  let extraProblems = 0;
  const problem = (message: string) => {
    // A flood of malformed lines must not turn into a flood of notes.
    if (problems.length < MAX_PROBLEMS) problems.push(message);
    else extraProblems += 1;
  };
  return {
    problem,
    add(raw, where) {
      const checked = checkFinding(raw, context);
      if (typeof checked === "string") problem(`${where}: ${checked}`);
      else findings.push(checked);
    },
    outcome() {
      const notes = extraProblems > 0 ? [...problems, `… and ${extraProblems} more problems`] : problems;
      return { findings, problems: notes };
    },
  };
}

/** A decimal string as a number, or the string itself so that the problem names what was there. */
export function decimalOrText(text: string | undefined): unknown {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : text;
}

// Every check below costs a bounded amount whatever the lengths: a value shared by many findings
// (one SARIF message string, one ESLint filePath) is never scanned whole once per finding.
function checkFinding(raw: RawFinding, context: ParseContext): Finding | string {
  if (typeof raw.path !== "string" || raw.path === "") return "has no file path";
  if (raw.path.length > MAX_PATH_LENGTH) return `path is longer than ${MAX_PATH_LENGTH} characters`;
  if (typeof raw.message !== "string") return "has no message";
  const message = cap(raw.message);
  if (message.trim() === "") return "has no message";
  if (raw.rule !== undefined && raw.rule !== null && typeof raw.rule !== "string") {
    return `rule is ${describe(raw.rule)}, not a string`;
  }
  const rule = raw.rule === undefined || raw.rule === null || raw.rule === "" ? null : cap(raw.rule);
  const line = position(raw.line);
  const endLine = position(raw.endLine);
  const column = position(raw.column);
  for (const [name, value] of [
    ["line", line],
    ["end line", endLine],
    ["column", column],
  ] as const) {
    if (typeof value === "string") return `${name} ${value}`;
  }
  const start = line as number | null;
  const end = endLine as number | null;
  return {
    path: raw.path,
    line: start,
    // An end before the start, or without a start, is dropped rather than trusted.
    endLine: start === null || end === null || end < start ? null : end,
    column: start === null ? null : (column as number | null),
    severity: resolveSeverity(context.severity, rule, raw.toolLevel, raw.fallback),
    message,
    rule,
    helper: raw.source ?? context.helper,
  };
}

// What sanitising will read anyway (see `sanitiseFinding`); a V8 slice shares the original's memory.
function cap(text: string): string {
  return text.length > MAX_FINDING_INPUT ? text.slice(0, MAX_FINDING_INPUT) : text;
}

// 0 is how several tools say "no line" (checkstyle's file-level errors, pylint's 0-based column
// on a whole-line message), so it means absent; anything else must be a positive integer.
function position(value: unknown): number | null | string {
  if (value === undefined || value === null || value === 0) return null;
  if (typeof value === "number" && Number.isInteger(value) && value > 0 && value <= MAX_POSITION) return value;
  return `${describe(value)} is not a positive integer`;
}

function describe(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return quote(value, 20);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
