import { aiReportOff, type AiReport, type PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { PublishedFinding, PublishedReport } from "@reviewbot/contracts/published-report";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { describe, expect, it } from "vitest";
import { aiFingerprint } from "./finding-fingerprint.js";
import { ISSUE_COMMENT_MAX, renderPrSummary, summaryKeys, type PrSummaryInput } from "./render-pr-summary.js";

const HEAD = "b".repeat(40);
const helperFinding = (extra: Partial<PublishedFinding> = {}): PublishedFinding => ({
  path: "src/a.ts",
  line: 3,
  endLine: null,
  column: null,
  severity: "warning",
  message: "unused variable",
  rule: "no-unused",
  helper: "eslint",
  anchor: null,
  ...extra,
});
const aiFinding = (extra: Partial<PlacedAiFinding> = {}): PlacedAiFinding => ({
  path: "src/calc.ts",
  side: "RIGHT",
  startLine: null,
  line: 7,
  severity: "error",
  category: "bug",
  title: "Subtracts instead of adding",
  body: "Use +.",
  suggestion: null,
  anchor: "0123456789abcdef",
  ...extra,
});
const aiDone = (extra: Partial<AiReport> = {}): AiReport => ({
  ...aiReportOff(),
  status: "done",
  model: "stand-in-coder",
  summary: "Reviewed.",
  coverage: { files: 40, reviewedFiles: 14, skipped: [{ path: "package-lock.json", reason: "lockfile" }] },
  note: null,
  ...extra,
});
const report = (patch: Partial<PublishedReport> = {}): PublishedReport => ({
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [{ name: "eslint", image: "reviewbot/eslint", outcome: "findings", durationMs: 1200, findings: 1, problems: [] }],
  findings: [helperFinding()],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 10,
  ai: aiReportOff(),
  ...patch,
});
const input = (patch: Partial<PrSummaryInput> = {}): PrSummaryInput => ({
  report: report(),
  headSha: HEAD,
  previous: null,
  threads: {},
  commands: [],
  paused: false,
  dismissed: 0,
  ...patch,
});

const HOSTILE = "@octocat ![x](https://evil.example/p.png) [click](https://evil.example) <img src=x> <b>hi</b> https://evil.example owner/repo#1 | cell\nbreak";

describe("renderPrSummary", () => {
  it("without a model: the helpers' part, no model sections, and says so", () => {
    const text = renderPrSummary(input());
    expect(text).toContain("| eslint | findings | 1 |");
    expect(text).toContain("1 warning");
    expect(text).toContain("this summary has the helpers' part only");
    expect(text).not.toContain("### What this PR does");
    expect(text).not.toContain("### Walkthrough");
    expect(text).not.toContain("### Since the last review");
  });

  it("with a model: description, walkthrough table, findings by severity linked to their threads, coverage", () => {
    const finding = aiFinding();
    const text = renderPrSummary(
      input({
        report: report({
          ai: aiDone({ description: "Adds a calculator.", walkthrough: [{ path: "src/calc.ts", change: "Adds add()." }], findings: [finding] }),
        }),
        threads: { [aiFingerprint(finding)]: 4242 },
      }),
    );
    expect(text).toContain("### What this PR does\n\nAdds a calculator\\.");
    expect(text).toContain("| file | what changed |\n| --- | --- |\n| src/calc\\.ts | Adds add\\(\\)\\. |");
    expect(text).toContain("1 error, 1 warning, 0 notices.");
    expect(text).toContain("- src/calc\\.ts:7: Subtracts instead of adding (AI review) ([thread](#discussion_r4242))");
    expect(text).toContain("reviewed 14 of 40 changed files; skipped: package\\-lock\\.json (lockfile).");
  });

  it("says what this push changed since the last review, and pause and dismissals when the caller says so", () => {
    const finding = aiFinding();
    const previous = { headSha: "a".repeat(40), keys: [...summaryKeys(report()), "gone-key"] };
    const text = renderPrSummary(input({ report: report({ ai: aiDone({ findings: [finding] }) }), previous, paused: true, dismissed: 2 }));
    expect(text).toContain(`From \`${"a".repeat(12)}\` to \`${"b".repeat(12)}\`: 1 new finding, 1 finding no longer found.`);
    expect(text).toContain("**Paused:**");
    expect(text).toContain("2 findings dismissed on this PR are not raised again.");
  });

  it("lists the commands it is given", () => {
    const text = renderPrSummary(input({ commands: [{ usage: "@reviewbot pause", description: "stop automatic reviews" }] }));
    expect(text).toContain("<details><summary>Commands</summary>");
    expect(text).toContain("- `@reviewbot pause`: stop automatic reviews");
  });

  it.each([
    ["description", (hostile: string) => aiDone({ description: hostile })],
    ["walkthrough path", (hostile: string) => aiDone({ walkthrough: [{ path: hostile, change: "x" }] })],
    ["walkthrough change", (hostile: string) => aiDone({ walkthrough: [{ path: "a.ts", change: hostile }] })],
    ["AI finding title", (hostile: string) => aiDone({ findings: [aiFinding({ title: hostile.slice(0, 200) })] })],
    ["skipped path", (hostile: string) => aiDone({ coverage: { files: 1, reviewedFiles: 0, skipped: [{ path: hostile, reason: hostile.slice(0, 200) }] } })],
    ["note", (hostile: string) => aiDone({ note: hostile })],
  ])("escapes hostile text in the %s: no mention, link, image, HTML, autolink or broken table", (_field, ai) => {
    const text = renderPrSummary(input({ report: report({ ai: ai(HOSTILE), findings: [helperFinding({ message: HOSTILE, path: HOSTILE })] }) }));
    expect(text).not.toMatch(/@octocat/);
    expect(text).not.toMatch(/!\[x\]\(/);
    expect(text).not.toMatch(/\[click\]\(/);
    expect(text).not.toMatch(/<img|<b>/);
    // What GitHub would autolink is in a code span, never bare.
    expect(text).not.toMatch(/[^`]https:\/\/evil\.example(?!\/p|`)/);
    expect(text).not.toMatch(/[^`]owner\/repo#1/);
    // Every table row keeps its two cells: a pipe or a newline in the text cannot add or end one.
    for (const row of text.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| ---"))) {
      expect(row.replace(/\\\|/g, "").split("|").length - 2, row).toBeLessThanOrEqual(3);
    }
    expect(text.split("\n").some((line) => line.startsWith("break"))).toBe(false);
  });

  it("fits in an issue comment however many findings there are", () => {
    const findings = Array.from({ length: 20_000 }, (_, i) => helperFinding({ path: `${"p".repeat(4000)}${i}`, message: "m".repeat(2000) }));
    const text = renderPrSummary(input({ report: report({ findings }) }));
    expect(text.length).toBeLessThanOrEqual(ISSUE_COMMENT_MAX);
    expect(text).toContain("did not fit");
  });

  it("renders in time linear in the number of findings", () => {
    const make = (size: number): PrSummaryInput =>
      input({
        report: report({
          findings: Array.from({ length: size }, (_, i) => helperFinding({ path: `src/f${i}.ts`, severity: i % 2 === 0 ? "notice" : "warning" })),
        }),
      });
    expect(growthRatio((value) => renderPrSummary(value), make, 500)).toBeLessThan(8);
  }, 60_000);
});
