import { quote } from "@reviewbot/policy/config-error";
import { createFindingCollector, type FindingCollector } from "./finding-collector.js";
import type { Severity } from "@reviewbot/contracts/severity";
import type { ParseContext, ParseOutcome } from "./finding.js";
import { isJsonObject, member, readJsonArray } from "./json-input.js";
import { sarifMessageReader, type SarifMessageReader } from "./sarif-message.js";
import { sarifRuleLookup, type SarifRuleLookup } from "./sarif-rules.js";
import { sarifToolSource } from "./sarif-tool-source.js";
import { sarifPathResolver, type SarifPathResolver } from "./sarif-uri.js";

// SARIF 2.1.0 §3.27.10: `level` is error | warning | note | none; GitHub has no "none" level.
const LEVELS: Readonly<Record<string, Severity>> = { error: "error", warning: "warning", note: "notice", none: "notice" };
// §3.27.9: results of these kinds are not problems (a passed or inapplicable check).
const NOT_PROBLEMS = new Set(["pass", "notApplicable"]);

/**
 * Parses a SARIF 2.1.0 log: each `runs[].results[]` becomes a finding with its `ruleId` (or the
 * id of `rule`/`ruleIndex`, in the driver or the extension `rule.toolComponent` names; see
 * `sarifRuleLookup`), its message (`message.text`, or the rule's or driver's message
 * string that `message.id` names, with its arguments; see `sarifMessageReader`), and the first
 * location's artifact URI and region. With `toolAsSource` (a code scanner's file) each run's
 * findings are named for its tool (`sarifToolSource`).
 * The level is the result's `level`, else the rule's `defaultConfiguration.level`, else
 * `warning` (§3.27.10); `note` and `none` become `notice`. Results of kind `pass` or
 * `notApplicable` and suppressed results (an `accepted` suppression or one without a status)
 * are skipped. URIs are resolved against
 * `originalUriBaseIds` where the run defines the base; a base it does not define (such as
 * `%SRCROOT%`) is taken to be the helper's working directory. A result located only by logical
 * locations (a namespace, a function) or by none has no file to annotate: it is reported in
 * `problems`, naming the logical location, rather than as a finding.
 */
export function parseSarif(output: string, context: ParseContext): ParseOutcome {
  const collector = createFindingCollector(context);
  const log = readJsonArray(output, collector, "runs", "output is not a SARIF log: `runs` is not an array");
  log?.items.forEach((run: unknown, runIndex) => {
    const results = member(run, "results");
    if (results === undefined || results === null) return;
    if (!Array.isArray(results)) {
      collector.problem(`runs[${runIndex}].results is not an array`);
      return;
    }
    const source = context.toolAsSource === true ? sarifToolSource(run) : undefined;
    const runContext = { run, rules: sarifRuleLookup(run), paths: sarifPathResolver(run), messages: sarifMessageReader(run), source };
    results.forEach((result: unknown, index) => {
      readResult(collector, runContext, result, `runs[${runIndex}].results[${index}]`);
    });
  });
  return collector.outcome();
}

/** What every result of one run is read with. */
interface RunContext {
  readonly run: unknown;
  readonly rules: SarifRuleLookup;
  readonly paths: SarifPathResolver;
  readonly messages: SarifMessageReader;
  /** The run's tool, when its findings are named for it (`toolAsSource`). */
  readonly source: string | undefined;
}

function readResult(collector: FindingCollector, { run, rules, paths, messages, source }: RunContext, result: unknown, where: string): void {
  if (!isJsonObject(result)) {
    collector.problem(`${where} is not an object`);
    return;
  }
  const kind = member(result, "kind");
  if (typeof kind === "string" && NOT_PROBLEMS.has(kind)) return;
  if (isSuppressed(member(result, "suppressions"))) return;
  const rule = rules(result);
  const level = member(result, "level") ?? member(rule.descriptor, "defaultConfiguration", "level") ?? "warning";
  const toolLevel = typeof level === "string" ? level : null;
  const known = toolLevel !== null && Object.hasOwn(LEVELS, toolLevel) ? LEVELS[toolLevel] : undefined;
  const location = firstOf(member(result, "locations"));
  const physical = member(location, "physicalLocation");
  const region = member(physical, "region");
  const path = paths(member(physical, "artifactLocation"));
  if (!path.ok) {
    collector.problem(`${where}: ${path.problem}`);
    return;
  }
  if (path.path === undefined) {
    collector.problem(`${where}: ${withoutFile(run, location)}`);
    return;
  }
  collector.add(
    {
      path: path.path,
      line: member(region, "startLine"),
      endLine: member(region, "endLine"),
      column: member(region, "startColumn"),
      message: messages(member(result, "message"), rule.descriptor),
      rule: rule.id,
      toolLevel,
      fallback: known ?? "warning",
      ...(source === undefined ? {} : { source }),
    },
    where,
  );
  if (known === undefined) {
    const shown = typeof level === "string" ? quote(level, 20) : `of type ${typeof level}`;
    collector.problem(`${where}: level ${shown} is not a SARIF level; reported as a warning`);
  }
}

// GitHub annotates files, and the pipeline maps every finding to one: say what was left out,
// naming the logical location (its own name, or that of the run's entry its `index` points at).
function withoutFile(run: unknown, location: unknown): string {
  const logical = firstOf(member(location, "logicalLocations"));
  if (logical === undefined) return "has no file location; not reported";
  const index = member(logical, "index");
  const listed = member(run, "logicalLocations");
  const entry = typeof index === "number" && Array.isArray(listed) ? (listed[index] as unknown) : undefined;
  const name = [logical, entry].map(nameOf).find((value) => value !== undefined);
  return `has only a logical location${name === undefined ? "" : ` ${quote(name, 80)}`}, no file to annotate; not reported`;
}

function nameOf(logical: unknown): string | undefined {
  const name = member(logical, "fullyQualifiedName") ?? member(logical, "name");
  return typeof name === "string" ? name : undefined;
}

// §3.35.3: a suppression whose status is `underReview` or `rejected` does not suppress.
function isSuppressed(suppressions: unknown): boolean {
  if (!Array.isArray(suppressions)) return false;
  return suppressions.some((suppression: unknown) => {
    const status = member(suppression, "status");
    return status === undefined || status === "accepted";
  });
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? (value[0] as unknown) : undefined;
}
