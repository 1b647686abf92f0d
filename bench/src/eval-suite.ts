/**
 * `reviewbot eval` over the suite that ships (eval/suites/small), against the model stand-in
 * scripted as an oracle: each review answers exactly its case's known findings at once. It shows
 * the real suite end to end (every case materialised, reviewed through the pipeline and scored,
 * the oracle scoring precision and recall 1) and prints how long the suite takes when the model
 * costs nothing: the floor under a real model's time. Not a test; exits 1 only when the oracle
 * does not score 1 (the suite or the scorer is broken).
 *
 *   pnpm --filter @reviewbot/bench bench:eval      (BENCH_REPEAT=3 by default)
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reply, startModelStandIn, type ModelStandInRequest } from "@reviewbot/llm/testing/model-stand-in";
import { readSuite, type SuiteCase } from "@reviewbot/review/eval/read-suite";
import { runCli } from "./cli-process.js";

const SUITE = fileURLToPath(new URL("../../eval/suites/small", import.meta.url));
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const MODEL = "stand-in-oracle";

interface CaseAnswer {
  /**
   * The lines the case's PR adds: the case reviewed is the one whose added lines the request holds
   * the largest share of (another case of the same file may have more of its lines there as context).
   */
  readonly added: readonly string[];
  readonly findings: readonly Readonly<Record<string, unknown>>[];
}

/** The known findings as `submit_review` findings, anchored on the head's text (the base with the patch applied). */
function answerOf(entry: SuiteCase, work: string): CaseAnswer {
  const head = join(work, entry.manifest.id);
  cpSync(join(entry.dir, "base"), head, { recursive: true });
  execFileSync("git", ["apply", "--binary", join(entry.dir, "pr.patch")], { cwd: head, env: { ...process.env, GIT_CEILING_DIRECTORIES: work } });
  const patch = readFileSync(join(entry.dir, "pr.patch"), "utf8");
  const added = patch
    .split("\n")
    .filter((line) => line.startsWith("+") && !line.startsWith("+++") && line.trim().length > 8)
    .map((line) => line.slice(1));
  const findings = entry.manifest.known.map((known) => {
    const file = known.side === "RIGHT" ? join(head, known.path) : join(entry.dir, "base", known.path);
    const anchorText = readFileSync(file, "utf8").split("\n")[known.endLine - 1] ?? "";
    return {
      path: known.path,
      side: known.side,
      line: known.endLine,
      ...(known.startLine === known.endLine ? {} : { startLine: known.startLine }),
      severity: "warning",
      category: "bug",
      title: known.description.slice(0, 100),
      body: known.description,
      anchorText,
    };
  });
  return { added, findings };
}

function oracle(answers: readonly CaseAnswer[]) {
  return (request: ModelStandInRequest) => {
    const held = answers.map(
      (answer) => answer.added.filter((line) => request.bodyText.includes(JSON.stringify(line).slice(1, -1))).length / Math.max(1, answer.added.length),
    );
    const best = answers[held.indexOf(Math.max(...held))];
    return reply.toolCall("submit_review", { summary: "oracle", findings: best?.findings ?? [] }, { usage: { input: 1000, output: 100 } });
  };
}

const suite = await readSuite(SUITE);
const work = mkdtempSync(join(tmpdir(), "reviewbot-bench-eval-"));
const model = await startModelStandIn();
try {
  model.script(oracle(suite.cases.map((entry) => answerOf(entry, join(work, "heads")))));
  const run = await runCli(["eval", "--suite", SUITE, "--repeat", String(REPEAT), "--engine", "none", "--format", "json", "--cache-dir", join(work, "cache")], {
    REVIEWBOT_CACHE_DIR: join(work, "clones"),
    REVIEWBOT_SANDBOX: "off",
    REVIEWBOT_LLM_PROTOCOL: "openai",
    REVIEWBOT_LLM_BASE_URL: model.url("openai"),
    REVIEWBOT_LLM_MODEL: MODEL,
  });
  if (run.status !== 0) throw new Error(`reviewbot eval exited ${String(run.status)}: ${run.stderr.slice(-2000)}`);
  const result = JSON.parse(run.stdout) as { overall: Record<string, number | null>; cases: { id: string; recall: number | null; precision: number | null }[] };
  const overall = result.overall;
  const reviews = suite.cases.length * REPEAT;
  console.log(`eval/suites/small: ${String(suite.cases.length)} cases x ${String(REPEAT)} repetitions = ${String(reviews)} reviews, oracle model (no latency)`);
  console.log(
    `  whole run: ${(run.wallMs / 1000).toFixed(1)} s wall, ${(run.wallMs / reviews / 1000).toFixed(2)} s per review; CLI peak RSS ${String(Math.round(run.peakRssKiB / 1024))} MiB`,
  );
  console.log(`  per review: p50 ${String(overall.p50Ms)} ms, p95 ${String(overall.p95Ms)} ms`);
  console.log(
    `  oracle scores: precision ${String(overall.precision)}, recall ${String(overall.recall)}, F0.5 ${String(overall.f05)}, FP rate ${String(overall.falsePositiveRate)}, anchor validity ${String(overall.anchorValidity)}`,
  );
  for (const missed of result.cases.filter((entry) => (entry.recall ?? 1) < 1 || (entry.precision ?? 1) < 1)) {
    console.log(`  not scored 1: ${missed.id} (precision ${String(missed.precision)}, recall ${String(missed.recall)})`);
  }
  if (overall.precision !== 1 || overall.recall !== 1) process.exitCode = 1;
} finally {
  await model.close();
  rmSync(work, { recursive: true, force: true });
}
