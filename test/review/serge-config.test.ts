import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { HelperReport, Report } from "@reviewbot/review/pipeline/report";
import { REVIEW_ENGINES, useReviewHarness, type ReviewEngineKind } from "../support/review-fixture.js";
import { createReviewRepo } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";

/**
 * `.ai/review-tools.json` as ai-reviewer/serge writes it: only serge's keys, no `image`, no
 * `format`. Run as written, on a worker whose operator maps image-less helpers to an image with
 * their tools (`defaultImage: "python"`), and on one whose default image lacks them.
 */
const SERGE_HELPERS = [
  {
    name: "flake8",
    description: "Run flake8 on the repository's Python files",
    command: ["flake8", "--max-line-length=100"],
    cwd: ".",
    allow_args: true,
    max_args: 20,
    timeout_seconds: 120,
  },
  {
    name: "python_version",
    description: "Report the Python version the tools run on",
    command: ["python3", "--version"],
    cwd: ".",
    allow_args: false,
    max_args: 0,
    timeout_seconds: 30,
  },
];
const CONTEXT_SCRIPT = '#!/usr/bin/env python3\nimport json, sys\npr = json.load(sys.stdin)\nprint(json.dumps({"context": "files: %d" % len(pr["files"])}))\n';
const LIMITS = { concurrency: 2, memoryBytes: 512 * 1024 * 1024, timeoutSeconds: 60 };

function useSergeReview(kind: ReviewEngineKind, operator: OperatorPolicy): () => Report {
  const harness = useReviewHarness(kind, operator);
  let root = "";
  let report: Report | undefined;
  beforeAll(async () => {
    root = await reachableTempDir("review-serge");
    const upstream = createReviewRepo(root, {
      helpers: SERGE_HELPERS,
      contextScript: CONTEXT_SCRIPT,
      fork: (tree) => {
        tree.write("src/clean.py", "def add(a, b):\n    return a + b\n");
      },
    });
    report = await harness.review(upstream);
  }, 180_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return () => {
    if (report === undefined) throw new Error("the review did not run");
    return report;
  };
}

function helper(report: Report, name: string): HelperReport {
  const found = report.helpers.find((h) => h.name === name);
  if (found === undefined) throw new Error(`no helper ${name} in the report`);
  return found;
}

describe.each(REVIEW_ENGINES)("a serge config ($name)", (kind) => {
  describe("on a worker whose operator's defaultImage is python", () => {
    const review = useSergeReview(kind, parseOperatorPolicy({ limits: LIMITS, defaultImage: "python" }));

    it("runs every helper as written, in the python image", () => {
      const report = review();
      expect(report.config.errors).toEqual([]);
      expect(report.helpers.map((h) => [h.name, h.image, h.outcome])).toEqual([
        ["flake8", "python", "passed"],
        ["python_version", "python", "passed"],
      ]);
      expect(helper(report, "python_version").stdout).toMatch(/^Python 3\.\d+\.\d+\n$/);
      expect(report.errors).toEqual([]);
    });

    it("runs a Python context script", () => {
      expect(review().context).toMatchObject({ outcome: "passed", text: "files: 1", error: null });
    });
  });

  describe("on a worker whose operator's defaultImage is base (no Python)", () => {
    const review = useSergeReview(kind, parseOperatorPolicy({ limits: LIMITS }));

    it.each([
      ["flake8", "flake8"],
      ["python_version", "python3"],
    ])("says that %s's program %s is not in the image, and what to do", (name, program) => {
      const report = review();
      const line =
        `program \`${program}\` is not in image \`base\` (localhost/reviewbot/base:latest): a helper without "image" runs in the operator's defaultImage; ` +
        `name an image that has \`${program}\` in the helper's "image" (images: base, node, python), or the operator sets defaultImage to one (docs/review.md, "Serge configs")`;
      expect(helper(report, name)).toMatchObject({ image: "base", outcome: "failed", error: line });
      expect(report.errors).toContain(`${name}: ${line}`);
    });

    it("says why the Python context script failed", () => {
      const context = review().context;
      expect(context).toMatchObject({ outcome: "failed", text: "" });
      expect(context?.error).toBe(
        "program `python3` is not in image `base` (localhost/reviewbot/base:latest): the context script runs in the operator's defaultImage; " +
          'the operator sets defaultImage to an image that has `python3` (images: base, node, python), or the script uses only what `base` has (docs/review.md, "Serge configs")',
      );
    });
  });
});
