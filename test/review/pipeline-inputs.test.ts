import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_ENGINES, useReviewHarness } from "../support/review-fixture.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { createReviewRepo, printingHelper } from "../support/review-repos.js";

const CANARY = "ghs_canary_token_123456";

/** Echoes the PR's title (read from stdin) as context, and asks to skip one file. */
const CONTEXT_SCRIPT = `#!/bin/sh
title=$(sed -n 's/.*"title":"\\([^"]*\\)".*/\\1/p')
printf '{"context":"title=%s","skip_files":["src/skipped.py"]}' "$title"
`;

const addBoth = (tree: { write(path: string, content: string): void }): void => {
  tree.write("src/kept.py", "a = 1\n");
  tree.write("src/skipped.py", "b = 1\n");
};

describe.each(REVIEW_ENGINES)("review pipeline: untrusted inputs ($name)", (kind) => {
  const harness = useReviewHarness(kind);
  let root = "";
  beforeAll(async () => {
    root = await reachableTempDir("review-inputs");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  let next = 0;
  const repoRoot = (): string => `${root}/repo-${String((next += 1))}`;

  it("drops findings on the context script's skip_files, and gives the script the PR on stdin", async () => {
    const upstream = createReviewRepo(repoRoot(), {
      helpers: [printingHelper("lint", ["src/kept.py:1: kept", "src/skipped.py:1: skipped"])],
      contextScript: CONTEXT_SCRIPT,
      fork: addBoth,
    });
    const report = await harness.review(upstream, { pullRequest: { number: 7, title: "pr-title-4f1c" } });
    expect(report.context).toMatchObject({ outcome: "passed", text: "title=pr-title-4f1c", skipFiles: ["src/skipped.py"] });
    expect(report.findings.map((f) => f.path)).toEqual(["src/kept.py"]);
    expect(report.filtered.skippedByContext).toBe(1);
  });

  it("runs nothing when the base has no .ai/", async () => {
    const upstream = createReviewRepo(repoRoot(), { fork: addBoth });
    const report = await harness.review(upstream);
    expect(report).toMatchObject({ helpers: [], findings: [], context: null, errors: [], config: { errors: [] } });
    expect(report.overlay).toMatchObject({ source: "absent", failedClosed: false });
  });

  it("drops a finding whose path leaves the work tree, with a problem saying so", async () => {
    const upstream = createReviewRepo(repoRoot(), {
      helpers: [printingHelper("escape", ["/work/../etc/passwd:1: x", "src/kept.py:1: inside"])],
      fork: addBoth,
    });
    const report = await harness.review(upstream, { filterMode: "nofilter" });
    const [escape] = report.helpers;
    expect(escape?.findings.map((f) => f.path)).toEqual(["src/kept.py"]);
    expect(escape?.problems.join("\n")).toMatch(/etc\/passwd/);
    expect(report.findings.map((f) => f.path)).toEqual(["src/kept.py"]);
  });

  it("scrubs a known secret from everything the report keeps", async () => {
    const upstream = createReviewRepo(repoRoot(), {
      helpers: [printingHelper("leaky", [`src/kept.py:1: token ${CANARY}`, `plain ${CANARY}`])],
      fork: addBoth,
    });
    const report = await harness.review(upstream, { secrets: [CANARY] });
    expect(report.findings).toHaveLength(1);
    expect(report.helpers[0]?.stdout).toContain("plain ");
    expect(JSON.stringify(report)).not.toContain(CANARY);
  });
});
