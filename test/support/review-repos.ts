import { createUpstream, type Upstream, type WorkTreeWriter } from "./git-fixture.js";

/** One entry of `helpers` in `.ai/review-tools.json`, as a repository writes it. */
export type HelperEntry = Readonly<Record<string, unknown>>;

/** A helper entry with the required keys; `extra` adds or overrides any key. */
export function helperEntry(name: string, command: readonly string[], extra: HelperEntry = {}): HelperEntry {
  return { name, description: `${name} (test helper)`, command, ...extra };
}

/** A helper printing `lines` in errorformat (`file:line: message`) from the base image. */
export function printingHelper(name: string, lines: readonly string[], extra: HelperEntry = {}): HelperEntry {
  return helperEntry(name, ["printf", "%s\\n", ...lines], { format: "errorformat", ...extra });
}

export interface ReviewRepoOptions {
  /** `.ai/review-tools.json` helpers on the base; none means the base has no `.ai/` at all. */
  readonly helpers?: readonly HelperEntry[];
  /** An executable `.ai/context-script` on the base. */
  readonly contextScript?: string;
  /** `.ai/review-config.json` on the base, as written (so a test can write it with a typo or broken). */
  readonly settings?: string;
  /** What the PR (branch `fork`) changes. */
  readonly fork: (tree: WorkTreeWriter) => void;
}

/**
 * An upstream whose `main` carries the given `.ai/` (or none) and whose `fork` branch, one commit
 * ahead of `main`, is the PR.
 */
export function createReviewRepo(root: string, options: ReviewRepoOptions): Upstream {
  const upstream = createUpstream(root, { ai: false });
  const { helpers, contextScript, settings } = options;
  if (helpers !== undefined || contextScript !== undefined || settings !== undefined) {
    upstream.commitOn(
      "main",
      (tree) => {
        if (helpers !== undefined) tree.write(".ai/review-tools.json", `${JSON.stringify({ helpers }, null, 2)}\n`);
        if (settings !== undefined) tree.write(".ai/review-config.json", settings);
        if (contextScript !== undefined) tree.write(".ai/context-script", contextScript, { executable: true });
      },
      "add .ai/",
    );
    upstream.git(["branch", "--force", "fork", "main"]);
  }
  upstream.commitOn("fork", options.fork, "the PR");
  return upstream;
}

/**
 * The model's finding on `src/calc.ts` as the AI tests' PRs change it (`let sum = 1;` on line 2):
 * what a stand-in model submits through `submit_review`.
 */
export function calcFinding(severity: "error" | "warning"): Readonly<Record<string, unknown>> {
  return {
    path: "src/calc.ts",
    side: "RIGHT",
    line: 2,
    severity,
    category: "bug",
    title: "The sum starts at 1",
    body: "Start at 0.",
    anchorText: "let sum = 1;",
  };
}
