import type { ScriptedToolCall } from "@reviewbot/llm/testing/model-stand-in";
import { browseThenSubmit } from "./ai-requests.js";
import { runAiReview, type AiRunOptions, type BenchPr } from "./ai-review-run.js";
import { SAMPLE_BROWSING, SAMPLE_REVIEW } from "./ai-sample-script.js";
import { pushLineChange } from "./bench-repos.js";

/** The one-line change of the second push: a line of web/greet.ts the first review did not comment on. */
const CHANGED = { path: "web/greet.ts", from: '  return "Hello, " + name;', to: "  return `Hello, ${name}`;" };

/**
 * The figure for reviews that follow the PR: the tokens a push of one changed line costs against
 * the first review of the same PR (target ≤ 20%). The first review browses as the sample script
 * does; the second starts from it (the api's record of it: its head, findings and witness) and is measured
 * three ways: a model that submits at once, one that reads the changed file first, and one that
 * browses as much as the first. Adds a commit to `pr`'s fork branch (`root` is where the benchmark
 * made it).
 */
export async function pushFigures(root: string, pr: BenchPr, options: Omit<AiRunOptions, "script">): Promise<void> {
  const first = await runAiReview(pr, { ...options, script: browseThenSubmit(SAMPLE_BROWSING, SAMPLE_REVIEW) });
  pushLineChange(root, pr.remote, CHANGED);
  const previous = { headSha: first.headSha, findings: first.report.findings, witness: [first.witness] };
  const second = (calls: readonly ScriptedToolCall[]) =>
    runAiReview(pr, { ...options, previous, script: browseThenSubmit(calls, { summary: "The change is fine.", findings: [] }) });
  const rows = [
    ["submits at once", await second([])],
    ["reads the changed file, then submits", await second([{ name: "read_file", arguments: { path: CHANGED.path } }])],
    ["browses as much as the first review", await second(SAMPLE_BROWSING)],
  ] as const;
  const sent = first.report.usage.inputTokens;
  console.log(
    `  push 2 (one changed line) against the first review of the sample (${sent.toLocaleString("en")} input tokens, ${String(first.report.usage.turns)} calls), target ≤ 20%:`,
  );
  for (const [label, run] of rows) {
    const { usage, since, findings } = run.report;
    const ratio = (100 * usage.inputTokens) / sent;
    console.log(
      `    ${label.padEnd(38)} ${usage.inputTokens.toLocaleString("en").padStart(7)} tokens  ${ratio.toFixed(1).padStart(5)}%  (${since === null ? "reviewed whole" : "since the first"}; ${String(findings.length)} earlier finding(s) carried)`,
    );
  }
}
