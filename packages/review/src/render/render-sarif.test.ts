import type { AiReport, PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { parseSarif } from "../findings/parse-sarif.js";
import type { Finding } from "../findings/finding.js";
import type { Report } from "../pipeline/report.js";
import { describe, expect, it } from "vitest";
import { pathToSarifUri, renderSarif } from "./render-sarif.js";

const finding = (path: string): Finding => ({
  path,
  line: 3,
  endLine: 4,
  column: 2,
  severity: "warning",
  message: "m",
  rule: "R1",
  helper: "lint",
});
// Only the fields renderSarif reads: the helpers, the findings and the AI review.
const report = (findings: readonly Finding[], ai: AiReport = aiReportOff()) => ({ helpers: [{ name: "lint" }], findings, ai }) as unknown as Report;

const aiFinding = (
  path: string,
  side: PlacedAiFinding["side"],
  category: PlacedAiFinding["category"],
  startLine: number | null,
  line: number,
): PlacedAiFinding => ({
  path,
  side,
  startLine,
  line,
  severity: "error",
  category,
  title: `${category} here`,
  body: "why",
  suggestion: null,
  anchor: "0123456789abcdef",
});
const aiDone = (findings: PlacedAiFinding[]): AiReport => ({ ...aiReportOff(), status: "done", model: "m1", findings });

interface SarifRun {
  tool: { driver: { name: string; rules: { id: string }[] } };
  results: {
    ruleId: string;
    ruleIndex: number;
    level: string;
    message: { text: string };
    locations: { physicalLocation: { artifactLocation: { uri: string }; region: object } }[];
  }[];
}

describe("pathToSarifUri", () => {
  it.each([
    ["src/app.py", "src/app.py"],
    ["docs/my notes.md", "docs/my%20notes.md"],
    ["100%/done.txt", "100%25/done.txt"],
    ["a#b?c.ts", "a%23b%3Fc.ts"],
    ["c:drive/x.ts", "c%3Adrive/x.ts"],
    ["café/ünï.py", "caf%C3%A9/%C3%BCn%C3%AF.py"],
    ["lone\ud800.py", "lone%EF%BF%BD.py"],
  ])("encodes %j as %j", (path, uri) => {
    expect(pathToSarifUri(path)).toBe(uri);
  });

  // RFC 3986 relative-ref: path segments of unreserved characters, percent-escapes and sub-delims.
  it.each(["docs/my notes.md", "100%/done.txt", "a#b?c.ts", "c:drive/x.ts", "[x]{y}|z^`.ts"])("writes %j as a valid URI reference", (path) => {
    expect(pathToSarifUri(path)).toMatch(/^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-F]{2})*(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-F]{2})*)*$/);
  });
});

describe("renderSarif", () => {
  it("writes a log our own parser reads back to the same findings", () => {
    const findings = ["src/app.py", "docs/my notes.md", "100%/done.txt", "a#b?c.ts", "c:drive/x.ts", "café/ünï.py"].map(finding);
    const log = JSON.stringify(renderSarif(report(findings)), null, 2);
    expect(parseSarif(log, { helper: "lint" })).toEqual({ findings, problems: [] });
  });

  it("gives a source that is not a helper (a code scanner's SARIF) a run of its own, named for it", () => {
    const scanned = { ...finding("src/app.py"), helper: "CodeQL", rule: "js/xss" };
    const log = JSON.stringify(renderSarif(report([finding("a.ts"), scanned])));
    const runs = (JSON.parse(log) as { runs: SarifRun[] }).runs;
    expect(runs.map((run) => [run.tool.driver.name, run.results.length])).toEqual([
      ["lint", 1],
      ["CodeQL", 1],
    ]);
    expect(parseSarif(log, { helper: "x", toolAsSource: true }).findings).toEqual([finding("a.ts"), scanned]);
  });
});

describe("renderSarif: the AI review", () => {
  it("adds one run with the RIGHT-side findings as ai/<category> results and each category as a rule", () => {
    const ai = aiDone([
      aiFinding("src/a.ts", "RIGHT", "security", null, 7),
      aiFinding("src/old.ts", "LEFT", "tests", null, 3),
      aiFinding("src/b c.ts", "RIGHT", "bug", 4, 6),
    ]);
    const { runs } = renderSarif(report([], ai)) as { runs: SarifRun[] };
    expect(runs.map((run) => run.tool.driver.name)).toEqual(["lint", "reviewbot-ai"]);
    const run = runs[1];
    expect(run?.tool.driver.rules.map((rule) => rule.id)).toEqual(["ai/bug", "ai/security"]);
    expect(
      run?.results.map((result) => [result.ruleId, run.tool.driver.rules[result.ruleIndex]?.id, result.level, result.locations[0]?.physicalLocation]),
    ).toEqual([
      ["ai/security", "ai/security", "error", { artifactLocation: { uri: "src/a.ts" }, region: { startLine: 7 } }],
      ["ai/bug", "ai/bug", "error", { artifactLocation: { uri: "src/b%20c.ts" }, region: { startLine: 4, endLine: 6 } }],
    ]);
    expect(run?.results[0]?.message.text).toBe("security here\n\nwhy");
  });

  it.each([
    ["off", aiReportOff(), ["lint"]],
    ["done without findings", aiDone([]), ["lint", "reviewbot-ai"]],
  ])("when %s, has runs %j", (_case, ai, names) => {
    const { runs } = renderSarif(report([], ai)) as { runs: SarifRun[] };
    expect(runs.map((run) => run.tool.driver.name)).toEqual(names);
  });
});
