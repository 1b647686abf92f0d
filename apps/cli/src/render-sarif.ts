import type { Report } from "@reviewbot/review/pipeline/report";

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

/** The report's findings as SARIF 2.1.0: one run per helper, each finding a result. */
export function renderSarif(report: Report): object {
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: report.helpers.map((helper) => ({
      tool: { driver: { name: helper.name, informationUri: "https://github.com/reviewbot", rules: [] } },
      results: report.findings
        .filter((finding) => finding.helper === helper.name)
        .map((finding) => ({
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
    })),
  };
}
