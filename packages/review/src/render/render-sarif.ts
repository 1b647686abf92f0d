import type { AiReport } from "@reviewbot/contracts/ai-report";
import type { Finding } from "../findings/finding.js";
import type { Report } from "../pipeline/report.js";

const LEVELS = { error: "error", warning: "warning", notice: "note" } as const;

// A lone surrogate (never in a mapped path, but a report may be old or hand-built) would make
// encodeURIComponent throw; it is written as U+FFFD instead.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A repository path as a relative SARIF `uri` (§3.4.3, a URI reference, RFC 3986): each segment
 * percent-encoded, so that a space, `%`, `#`, `?` or a `:` in the first segment (which would read
 * as a scheme) survive, and SARIF readers, ours included, get the same path back.
 */
export function pathToSarifUri(path: string): string {
  return path.replace(LONE_SURROGATE, "\ufffd").split("/").map(encodeURIComponent).join("/");
}

/**
 * The report's findings as SARIF 2.1.0: one run per helper, then one per other source of findings
 * (a code scanner whose SARIF the action read), each finding a result, and one run of the AI
 * review when it ran (see {@link aiRun}).
 */
export function renderSarif(report: Report): object {
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [...helperRuns(report), ...(report.ai.status === "off" ? [] : [aiRun(report.ai)])],
  };
}

function helperRuns(report: Report): object[] {
  // Every helper has a run, with results or not; a source that is not a helper has one for its findings.
  const bySource = new Map<string, Finding[]>(report.helpers.map((helper) => [helper.name, []]));
  for (const finding of report.findings) {
    const found = bySource.get(finding.helper);
    if (found === undefined) bySource.set(finding.helper, [finding]);
    else found.push(finding);
  }
  return [...bySource].map(([name, findings]) => ({
    tool: { driver: { name, informationUri: "https://github.com/reviewbot", rules: [] } },
    results: findings.map((finding) => ({
      ...(finding.rule === null ? {} : { ruleId: finding.rule }),
      level: LEVELS[finding.severity],
      message: { text: finding.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: pathToSarifUri(finding.path) },
            ...(finding.line === null
              ? {}
              : {
                  region: {
                    startLine: finding.line,
                    ...(finding.endLine === null ? {} : { endLine: finding.endLine }),
                    ...(finding.column === null ? {} : { startColumn: finding.column }),
                  },
                }),
          },
        },
      ],
    })),
  }));
}

/**
 * The AI review as one run (driver `reviewbot-ai`, the model in its properties): its placed findings
 * on the PR's side (RIGHT) as results with rule ids `ai/<category>`, each category used listed as a
 * rule. A finding on a removed line (LEFT) has no location in the head's files, so it is not here
 * (the JSON output has it).
 */
function aiRun(ai: AiReport): object {
  const findings = ai.findings.filter((finding) => finding.side === "RIGHT");
  const rules = [...new Set(findings.map((finding) => finding.category))].sort();
  return {
    tool: {
      driver: {
        name: "reviewbot-ai",
        informationUri: "https://github.com/reviewbot",
        rules: rules.map((category) => ({ id: `ai/${category}`, name: category, shortDescription: { text: `AI review: ${category}` } })),
      },
    },
    properties: { model: ai.model, status: ai.status },
    results: findings.map((finding) => ({
      ruleId: `ai/${finding.category}`,
      ruleIndex: rules.indexOf(finding.category),
      level: LEVELS[finding.severity],
      message: { text: `${finding.title}\n\n${finding.body}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: pathToSarifUri(finding.path) },
            region: { startLine: finding.startLine ?? finding.line, ...(finding.startLine === null ? {} : { endLine: finding.line }) },
          },
        },
      ],
    })),
  };
}
