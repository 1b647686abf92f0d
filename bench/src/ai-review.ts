/**
 * AI review benchmark. Against the model stand-in with no added latency, through the
 * real pipeline, clone cache, AI reviewer and model client, in both protocols:
 * (1) the loop's overhead per turn on the bundled sample PR: the AI stage's wall time less the
 *     stand-in's own time, for a model that browses with 10 tool calls before `submit_review`,
 *     one that makes 10 calls to no tool (nothing run), and one that submits at once; the
 *     difference per added turn (median of BENCH_RUNS after a warm-up each);
 * (2) bytes and estimated tokens sent per turn, turn by turn for one run, and their total;
 * (3) whether the prefix (system prompt + tools) stays byte-identical across the turns, and
 *     across the chunks and synthesis of one job cut small;
 * (4) the process's peak RSS; (5) the time to plan the chunks of a synthetic 1,000-file PR;
 * (6) the tokens a push of one changed line costs, reviewed from the first review.
 * Not a test: it prints figures, and exits 1 only when the prefix changed (a property the loop
 * promises), never on timing.
 *
 *   pnpm --filter @reviewbot/bench bench:ai      (BENCH_RUNS=15 for more)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startModelStandIn, type ModelProtocol, type ModelStandInRequest, type ScriptedToolCall } from "@reviewbot/llm/testing/model-stand-in";
import { DEFAULT_CHECKOUT_LIMITS } from "@reviewbot/overlay/checkout-limits";
import { CloneCache } from "@reviewbot/overlay/clone-cache";
import { planChunks } from "@reviewbot/review/ai/plan/plan-chunks";
import { pushFigures } from "./ai-push-figures.js";
import { browseThenSubmit, estimatedTokens, requestParts } from "./ai-requests.js";
import { runAiReview, type AiRun, type AiRunOptions, type BenchPr } from "./ai-review-run.js";
import { SAMPLE_BROWSING, SAMPLE_REVIEW } from "./ai-sample-script.js";
import { configWithoutHelpers, createSample, createWidePr } from "./bench-repos.js";
import { syntheticPatches } from "./synthetic-patches.js";
import { median } from "./median.js";
import { DEFAULT_AI_SKIP_RULES } from "@reviewbot/policy/ai-skip-rules";
import { skipReasonUnder } from "@reviewbot/review/ai/plan/skip-reason";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PROTOCOLS: readonly ModelProtocol[] = ["openai", "anthropic"];
/** Files of the PR cut small: at the planner's floor of 1,000 tokens a chunk, a few chunks. */
const WIDE_FILES = 100;
/** About what a 128k-token context leaves for the diff: half of it after the prompt, tools and output cap. */
const PLAN_TOKENS = 60_000;

const fixed = (value: number, digits = 2): string => value.toFixed(digits).padStart(8);
const bytes = (value: number): string => value.toLocaleString("en").padStart(8);

/** Median over RUNS runs (after one warm-up) of the AI stage's wall time, the stand-in's time, and ours. */
async function timed(run: () => Promise<AiRun>): Promise<{ ai: number; standIn: number; ours: number; last: AiRun }> {
  let last = await run();
  const runs: AiRun[] = [];
  for (let i = 0; i < RUNS; i += 1) runs.push((last = await run()));
  return { ai: median(runs.map((r) => r.aiMs)), standIn: median(runs.map((r) => r.standInMs)), ours: median(runs.map((r) => r.aiMs - r.standInMs)), last };
}

/** Prints whether every request's prefix equals the first's; returns false when one differs. */
function checkPrefix(requests: readonly ModelStandInRequest[], across: string): boolean {
  const prefixes = requests.map((request) => requestParts(request).prefix);
  const same = prefixes.every((prefix) => prefix === prefixes[0]);
  console.log(
    `  prefix (system prompt + tools, ${bytes(Buffer.byteLength(prefixes[0] ?? "")).trim()} bytes) identical across ${across}: ${same ? "yes" : "NO"}`,
  );
  return same;
}

/** Calls to tools that do not exist: the loop answers each itself, so a turn costs no git work. */
const NO_TOOL_CALLS = SAMPLE_BROWSING.map((_, index) => ({ name: `no_such_tool_${String(index)}`, arguments: {} }));

async function overheadFigures(protocol: ModelProtocol, sample: BenchPr, options: Omit<AiRunOptions, "script">): Promise<AiRun> {
  const run = (calls: readonly ScriptedToolCall[]) => timed(() => runAiReview(sample, { ...options, script: browseThenSubmit(calls, SAMPLE_REVIEW) }));
  const browsing = await run(SAMPLE_BROWSING);
  const idle = await run(NO_TOOL_CALLS);
  const direct = await run([]);
  const added = SAMPLE_BROWSING.length;
  console.log(`${protocol}: the sample PR, median of ${String(RUNS)} (ours = the AI stage's wall time − the stand-in's own time)`);
  const rows = [
    [`${String(added)} tool calls, then submit`, browsing],
    [`${String(added)} calls to no tool, then submit`, idle],
    ["submit at once", direct],
  ] as const;
  for (const [label, figures] of rows) {
    console.log(
      `  ${label.padEnd(34)} wall ${fixed(figures.ai)} ms  stand-in ${fixed(figures.standIn)} ms  ours ${fixed(figures.ours)} ms  (${String(figures.last.report.usage.turns)} turn(s))`,
    );
  }
  console.log(`  loop overhead per turn, a tool run on git objects included ${fixed((browsing.ours - direct.ours) / added)} ms`);
  console.log(
    `  loop overhead per turn, no tool run                        ${fixed((idle.ours - direct.ours) / added)} ms  (request built, sent, answer parsed)`,
  );
  console.log(`  fixed work of the stage and one call                       ${fixed(direct.ours)} ms  (rules, patch, plan, placement)`);
  return browsing.last;
}

function sentFigures(run: AiRun): boolean {
  console.log(`  sent per turn (one run; tokens as the stand-in counts them, ~4 characters each):`);
  for (const [index, request] of run.requests.entries()) {
    console.log(`    turn ${String(index + 1).padStart(2)}  ${bytes(requestParts(request).bytes)} bytes  ${bytes(estimatedTokens(request))} tokens`);
  }
  const { usage } = run.report;
  console.log(
    `  tokens sent for the sample review (inputs summed): ${usage.inputTokens.toLocaleString("en")} over ${String(usage.turns)} calls; ${String(run.report.findings.length)} finding(s) placed`,
  );
  return checkPrefix(run.requests, `${String(run.requests.length)} turns`);
}

async function chunkedJobPrefix(wide: BenchPr, options: Omit<AiRunOptions, "script" | "contextTokens">): Promise<boolean> {
  const script = browseThenSubmit([{ name: "read_file", arguments: { path: "pkg/m0000.py" } }], { summary: "ok", findings: [] });
  const job = await runAiReview(wide, { ...options, contextTokens: 0, script });
  const loops = job.requests.filter((request) => requestParts(request).turn === 0).length;
  if (loops < 3) throw new Error(`the PR cut small made ${String(loops - 1)} chunk(s); the check needs several`);
  return checkPrefix(job.requests, `${String(loops - 1)} chunks and the synthesis of one job (${String(job.requests.length)} calls)`);
}

function planFigures(): void {
  const files = syntheticPatches(1000);
  const chars = files.reduce((sum, file) => sum + file.patch.length, 0);
  const plan = planChunks(files, { maxTokens: PLAN_TOKENS, skip: skipReasonUnder(DEFAULT_AI_SKIP_RULES) }); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    planChunks(files, { maxTokens: PLAN_TOKENS, skip: skipReasonUnder(DEFAULT_AI_SKIP_RULES) });
    times.push(performance.now() - start);
  }
  console.log(
    `planning a synthetic 1,000-file PR (${(chars / 1e6).toFixed(1)} MB of patch text; ${String(plan.chunks.length)} chunks of ≤ ${PLAN_TOKENS.toLocaleString("en")} tokens, ${String(plan.skipped.length)} files skipped)`,
  );
  console.log(`  planChunks  median ${fixed(median(times))} ms  (min ${fixed(Math.min(...times))}, max ${fixed(Math.max(...times))}, n=${String(RUNS)})`);
}

const root = await mkdtemp(join(tmpdir(), "reviewbot-bench-ai-"));
const standIn = await startModelStandIn();
let prefixHeld = true;
try {
  const sample = { remote: createSample(root), config: "bench-config" };
  const wide = { remote: await createWidePr(root, WIDE_FILES), config: "bench-config" };
  for (const pr of [sample, wide]) configWithoutHelpers(pr.remote, "main", pr.config);
  const cache = new CloneCache({
    root: join(root, "cache"),
    allowedProtocols: ["file"],
    gitTimeoutMs: 30_000,
    lockWaitMs: 30_000,
    limits: DEFAULT_CHECKOUT_LIMITS,
  });
  await cache.init();
  const rssAtStart = process.memoryUsage().rss;
  for (const protocol of PROTOCOLS) {
    const options = { cache, standIn, protocol, contextTokens: 128_000 };
    const turns = sentFigures(await overheadFigures(protocol, sample, options));
    const chunks = await chunkedJobPrefix(wide, options);
    prefixHeld = prefixHeld && turns && chunks;
  }
  const mb = (value: number): string => `${(value / 1e6).toFixed(1)} MB`;
  console.log(
    `peak RSS of the process (pipeline, reviewer and stand-in in one)  ${mb(process.resourceUsage().maxRSS * 1024)}  (${mb(rssAtStart)} before the first review)`,
  );
  planFigures();
  console.log("incremental review (openai)");
  await pushFigures(root, sample, { cache, standIn, protocol: "openai", contextTokens: 128_000 });
} finally {
  await standIn.close();
  await rm(root, { recursive: true, force: true });
}
if (!prefixHeld) {
  console.error("FAIL: the request prefix (system prompt + tools) changed within a job: providers cannot cache it");
  process.exitCode = 1;
}
