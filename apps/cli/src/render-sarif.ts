import type { Report } from "@reviewbot/review/pipeline/report";

const LEVELS = { error: "error", warning: "warning", notice: "note" } as const;

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
                artifactLocation: { uri: finding.path },
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
