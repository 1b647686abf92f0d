import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { HelperReport, Report } from "@reviewbot/review/pipeline/report";
import { REVIEW_ENGINES, useReviewHarness } from "../support/review-fixture.js";
import { createReviewRepo, helperEntry, printingHelper } from "../support/review-repos.js";
import { semgrepSarif } from "../support/semgrep-sarif.js";
import { reachableTempDir } from "../support/temp-dirs.js";

const MiB = 1024 * 1024;
const BASE = "localhost/reviewbot/base:latest";

/**
 * The operator's defaults (1 MiB output cap, 8 MiB for documents, 5,000 findings per helper) but
 * a parse heap of 64 MiB: enough for real-sized SARIF, too little for the hostile log below.
 */
const OPERATOR = parseOperatorPolicy({ limits: { concurrency: 4, memoryBytes: 512 * MiB, timeoutSeconds: 60 }, findings: { parseMemoryBytes: 64 * MiB } });

const SEMGREP_RESULTS = Array.from({ length: 40 }, (_, index) => ({ uri: "src/new.py", line: index + 1, rule: index }));

const HELPERS = [
  // A 2.9 MB Semgrep-shaped log: over the 1 MiB output cap, under the documents' 8 MiB.
  helperEntry("semgrep", ["cat", "reports/semgrep.sarif"], { format: "sarif" }),
  // 6 MB of `[],`: two million arrays for JSON.parse, past a 64 MiB heap.
  helperEntry("hostile", ["cat", "reports/hostile.sarif"], { format: "sarif" }),
  // A SARIF helper that never stops: cut at 8 MiB, and a cut document is not read.
  helperEntry("endless", ["yes", "{}"], { format: "sarif" }),
  // Lines: cut at 1 MiB, the whole lines read, 5,000 findings kept.
  helperEntry("flood", ["yes", "src/new.py:1:1: E1 flood"], { format: "errorformat" }),
  // Programs the base image does not have: a bare name, and the interpreter of a base script.
  helperEntry("ruff", ["ruff", "check", "."], { format: "errorformat" }),
  helperEntry("lint-script", [".ai/lint.py"], { format: "errorformat" }),
  // (control) a helper that fails on its own, with a program the image has.
  helperEntry("grumpy", ["sh", "-c", "echo 'nothing to see' >&2; exit 1"]),
  printingHelper("lint", ["src/new.py:2: E1 a finding"]),
];

function helper(report: Report, name: string): HelperReport {
  const found = report.helpers.find((h) => h.name === name);
  if (found === undefined) throw new Error(`no helper ${name} in the report`);
  return found;
}

describe.each(REVIEW_ENGINES)("review pipeline: findings limits and missing programs ($name)", (kind) => {
  const harness = useReviewHarness(kind, OPERATOR);
  let root = "";
  let report: Report | undefined;
  beforeAll(async () => {
    root = await reachableTempDir("review-findings-limits");
    const upstream = createReviewRepo(root, {
      helpers: HELPERS,
      // A Python context script in an image without Python.
      contextScript: "#!/usr/bin/env python3\nprint('context')\n",
      fork: (tree) => {
        tree.write("src/new.py", Array.from({ length: 40 }, (_, index) => `x${String(index)} = ${String(index)}\n`).join(""));
        tree.write("reports/semgrep.sarif", semgrepSarif(SEMGREP_RESULTS, 2_900_000));
        tree.write("reports/hostile.sarif", `{"runs":[{"results":[${"[],".repeat(2_000_000)}[]]}]}`);
      },
    });
    // On the base after the fork point: `.ai/` is read from the base, the diff from the merge base.
    upstream.commitOn(
      "main",
      (tree) => {
        tree.write(".ai/lint.py", "#!/usr/bin/python3\nprint('src/new.py:1: E1 never printed')\n", { executable: true });
      },
      "a python lint script",
    );
    report = await harness.review(upstream);
  }, 240_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const review = (): Report => {
    if (report === undefined) throw new Error("the review did not run");
    return report;
  };

  it("reads a real-sized SARIF log whole, though it is past the general output cap", () => {
    const semgrep = helper(review(), "semgrep");
    expect(semgrep, semgrep.problems.join("\n")).toMatchObject({ outcome: "findings", outputTruncated: false, problems: [] });
    expect(semgrep.findings.map((f) => f.line)).toEqual(SEMGREP_RESULTS.map((r) => r.line));
    expect(review().findings.filter((f) => f.helper === "semgrep")).toHaveLength(40);
  });

  it("reports hostile output past the parse heap, and the review goes on", () => {
    const report = review();
    const reason = "findings not parsed: 5.7 MiB of sarif needed more than 64 MiB of memory";
    expect(helper(report, "hostile")).toMatchObject({ outcome: "failed", exitCode: 0, findings: [], problems: [reason], error: reason });
    expect(report.errors).toContain(`hostile: ${reason}`);
    expect(report.findings.map((f) => [f.helper, f.line]).filter(([h]) => h === "lint")).toEqual([["lint", 2]]);
  });

  it("refuses a SARIF output cut at the documents' cap instead of reading a prefix", () => {
    const reason = "findings not parsed: the output passed the 8 MiB output cap (findings.structuredOutputBytes), and sarif is read whole or not at all";
    expect(helper(review(), "endless")).toMatchObject({ outcome: "truncated", outputTruncated: true, findings: [], problems: [reason] });
    expect(review().errors).toContain(`endless: truncated: ${reason}`);
  });

  it("reads the whole lines of a cut line format, keeping 5,000 findings and saying how many were not", () => {
    const flood = helper(review(), "flood");
    expect(flood).toMatchObject({ outcome: "truncated", outputTruncated: true });
    expect(flood.findings).toHaveLength(5_000);
    const dropped = Math.floor(MiB / "src/new.py:1:1: E1 flood\n".length) - 5_000;
    const line = `${String(dropped)} findings past the cap of 5000 per helper (findings.perHelper) not kept`;
    expect(flood.problems).toEqual([line]);
    expect(review().errors).toContain(`flood: truncated: ${line}`);
  });

  it("names the program a helper's image lacks, the image, and what to do", () => {
    const ruff = helper(review(), "ruff");
    const line =
      `program \`ruff\` is not in image \`base\` (${BASE}): a helper without "image" runs in the operator's defaultImage; ` +
      'name an image that has `ruff` in the helper\'s "image" (images: base, node, python), or the operator sets defaultImage to one (docs/review.md, "Serge configs")';
    expect(ruff).toMatchObject({ outcome: "failed", error: line });
    expect(ruff.problems[0]).toBe(line);
    expect(review().errors).toContain(`ruff: ${line}`);
  });

  it("names the interpreter of a base script as the missing program", () => {
    expect(helper(review(), "lint-script").error).toMatch(/^program `\/usr\/bin\/python3` \(the interpreter of \.ai\/lint\.py\) is not in image `base`/);
  });

  it("says why a Python context script failed in an image without Python", () => {
    const context = review().context;
    expect(context).toMatchObject({ outcome: "failed", text: "" });
    expect(context?.error).toMatch(
      /^program `python3` is not in image `base` \(localhost\/reviewbot\/base:latest\): the context script runs in the operator's defaultImage; the operator sets defaultImage to an image that has `python3`/,
    );
    expect(review().errors).toContain(`context-script: ${context?.error ?? ""}`);
  });

  it("(control) says nothing of programs for a helper that fails on its own", () => {
    const grumpy = helper(review(), "grumpy");
    expect(grumpy).toMatchObject({ outcome: "failed", exitCode: 1, problems: [] });
    expect(grumpy.error).toBeUndefined();
    expect(review().errors).toContain("grumpy: exited 1 without findings");
  });
});
