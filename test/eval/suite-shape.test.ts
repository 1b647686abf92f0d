import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { evalCaseProblems } from "../support/eval-case-problems.js";
import { useTempDirs } from "../support/temp-dirs.js";

const SUITE = fileURLToPath(new URL("../../eval/suites/small", import.meta.url));
const LICENCES = join(SUITE, "licences");
// The budget for the suite kept in the repository (issue 26: "mind licences and sizes").
const SUITE_BYTES = 1.5 * 1024 * 1024;

interface SuiteJson {
  readonly name: string;
  readonly description: string;
  readonly cases: readonly string[];
}
const suite = JSON.parse(readFileSync(join(SUITE, "suite.json"), "utf8")) as SuiteJson;
const kinds = suite.cases.map((id) => (JSON.parse(readFileSync(join(SUITE, "cases", id, "case.json"), "utf8")) as { kind: string }).kind);

describe("the small eval suite", () => {
  const tempDir = useTempDirs();

  it("lists every case directory once, about 14 bug cases and 6 clean ones, within its size budget", () => {
    expect(Object.keys(suite).sort()).toEqual(["cases", "description", "name"]);
    expect(new Set(suite.cases).size).toBe(suite.cases.length);
    expect([...suite.cases].sort()).toEqual(readdirSync(join(SUITE, "cases")).sort());
    expect(kinds.filter((kind) => kind === "bug").length).toBeGreaterThanOrEqual(12);
    expect(kinds.filter((kind) => kind === "clean").length).toBeGreaterThanOrEqual(5);
    const bytes = readdirSync(SUITE, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);
    expect(bytes).toBeLessThan(SUITE_BYTES);
  });

  it.each(suite.cases)("case %s applies cleanly and its known findings lie inside the PR's hunks", async (id) => {
    expect(evalCaseProblems(join(SUITE, "cases", id), LICENCES, await tempDir("eval-case"))).toEqual([]);
  });

  // Negative controls: the check above must be able to fail.
  it("finds a known finding moved out of the PR's hunks, a patch that no longer applies, and a missing licence", async () => {
    const copy = join(await tempDir("eval-bad-case"), "send-root-prefix-traversal");
    cpSync(join(SUITE, "cases", "send-root-prefix-traversal"), copy, { recursive: true });
    const manifestPath = join(copy, "case.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { known: { startLine: number; endLine: number }[] };
    manifest.known = manifest.known.map((known) => ({ ...known, startLine: 1, endLine: 2 }));
    writeFileSync(manifestPath, JSON.stringify(manifest));
    writeFileSync(join(copy, "SOURCES.md"), readFileSync(join(copy, "SOURCES.md"), "utf8").replace("licences/send.txt", "licences/gone.txt"));
    expect(evalCaseProblems(copy, LICENCES, await tempDir("eval-bad-work"))).toEqual([
      "licence text gone.txt is missing",
      "RIGHT lib/send.js:1-2: not inside one hunk of the PR's diff",
    ]);
    const patchPath = join(copy, "pr.patch");
    writeFileSync(patchPath, readFileSync(patchPath, "utf8").replace("-    root = normalize(root + sep)", "-    root = normalise(root + sep)"));
    const problems = evalCaseProblems(copy, LICENCES, await tempDir("eval-bad-patch"));
    expect(problems.at(-1)).toMatch(/^pr\.patch does not apply/);
  });
});
