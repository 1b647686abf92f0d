import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, startModelStandIn, type ModelReply, type ModelStandIn } from "@reviewbot/llm/testing/model-stand-in";
import { reviewJobId } from "@reviewbot/queue/review-queue";
import { calcFinding, helperEntry } from "../support/review-repos.js";
import { INSTALLATION_ID, startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunOf, checkRunsOf, waitForCheckRun, waitForCompletedCheckRun } from "./check-runs.js";

const REPOSITORY = "octo/ai-outage";
const REPOSITORY_ID = 9300;
const BUDGET_REPOSITORY = "octo/ai-budget";
const BUDGET_REPOSITORY_ID = 9301;
const MODEL = "stand-in-coder";
const MODEL_KEY = `sk-canary-${randomUUID()}`;

let fleet: Fleet;
let model: ModelStandIn;
let outage: HostedPull;
let budget: HostedPull;
/** Whether the model endpoint answers; until then every call is a 500 (retried by the api's client at once). */
let up = false;

// The 500's message echoes the key, as a broken proxy in front of the provider might.
const DOWN: ModelReply = reply.status(500, { errorMessage: `upstream exploded near ${MODEL_KEY}`, headers: { "retry-after-ms": "1" } });
const REVIEW: ModelReply = reply.toolCall("submit_review", {
  summary: "The sum starts at one.",
  findings: [calcFinding("warning")],
});

const fork = (tree: { write(path: string, text: string): void }): void => {
  tree.write("src/calc.ts", "export function total(items: number[]): number {\n  let sum = 1;\n  return sum;\n}\n");
};
// One helper finding on a changed line: what must be published whatever the model does.
const helpers = [helperEntry("lint", ["sh", "-c", "echo 'src/calc.ts:3: E1 returns the seed'"], { format: "errorformat" })];

beforeAll(async () => {
  model = await startModelStandIn({ apiKey: MODEL_KEY });
  model.script(() => (up ? REVIEW : DOWN));
  fleet = await startFleet({
    repositories: { [REPOSITORY]: REPOSITORY_ID, [BUDGET_REPOSITORY]: BUDGET_REPOSITORY_ID },
    apiEnv: {
      REVIEWBOT_LLM_BASE_URL: model.url("openai"),
      REVIEWBOT_LLM_MODEL: MODEL,
      REVIEWBOT_LLM_API_KEY: MODEL_KEY,
      REVIEWBOT_AI_RETRY_ATTEMPTS: "4",
      REVIEWBOT_AI_RETRY_DELAY_MS: "1000",
    },
  });
  outage = hostPull(fleet, { repository: REPOSITORY, repositoryId: REPOSITORY_ID, number: 31, helpers, fork });
  // Another head than the first PR's (the same files would make the same commit).
  budget = hostPull(fleet, {
    repository: BUDGET_REPOSITORY,
    repositoryId: BUDGET_REPOSITORY_ID,
    number: 32,
    helpers,
    fork: (tree) => {
      fork(tree);
      tree.write("README.md", "budget\n");
    },
  });
}, 240_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
  await (model as ModelStandIn | undefined)?.close();
});

/** The JSON log lines of the api and every worker, parsed. */
const logLines = (): Record<string, unknown>[] => [fleet.api, ...fleet.workers].flatMap((process) => process.records());

/** The worker's audit lines of the sandboxes a job ran (one per context script, helper or model-called helper). */
const sandboxRuns = (jobId: string): number => logLines().filter((line) => line.msg === "sandbox run" && line.jobId === jobId).length;

describe("a model outage loses nothing: the helpers' results are published, the AI review follows alone", () => {
  it("completes the check run with the helper's finding and says the AI review is unavailable and why, without the key", async () => {
    const deliveryId = randomUUID();
    expect((await fleet.deliver("pull_request", pullRequestEvent(outage, "opened"), deliveryId)).status).toBe(202);
    const review = reviewJobId({ repositoryId: REPOSITORY_ID, pullNumber: outage.number, deliveryId });
    const run = await waitForCompletedCheckRun(fleet, outage.headSha);
    expect(run.external_id).toBe(review);
    expect(run.annotations.map((annotation) => [annotation.path, annotation.start_line])).toEqual([["src/calc.ts", 3]]);
    expect(run.output.summary).toContain("**Status:** failed");
    // Markdown-escaped in the summary: "unavailable\\: … HTTP 500\\: upstream exploded near \\[redacted\\]".
    expect(run.output.summary).toMatch(/the model endpoint is unavailable\\: .*HTTP 500/);
    expect(run.output.summary).toContain("the AI review is retried on its own");
    expect(JSON.stringify(run)).not.toContain(MODEL_KEY);
    // The helpers ran once, in sandboxes, for the review (the control of the count below).
    expect(sandboxRuns(review)).toBeGreaterThan(0);

    // The first retry meets the endpoint still down: the api schedules the next one itself.
    const retried = `${review}.ai1`;
    await waitUntil(
      () => logLines().some((line) => line.msg === "model endpoint still unavailable: AI review retried alone later" && line.jobId === retried),
      "a failed first retry",
    );
    expect(checkRunOf(fleet, outage.headSha)?.output.summary).not.toContain("The sum starts at one");

    // The endpoint comes back: a later retry completes the review on the same check run.
    up = true;
    const done = await waitForCheckRun(fleet, outage.headSha, (current) => (current.output.summary ?? "").includes("**Status:** done"));
    expect(checkRunsOf(fleet, outage.headSha).map((current) => current.id)).toEqual([run.id]);
    expect(done.status).toBe("completed");
    expect(done.output.summary).toContain("The sum starts at one");
    // The helper's annotation once, the model's added to it.
    expect(done.annotations.map((annotation) => [annotation.path, annotation.start_line]).sort()).toEqual([
      ["src/calc.ts", 2],
      ["src/calc.ts", 3],
    ]);
    // The model's comment is posted in a PR review of its own.
    await expect
      .poll(() => (fleet.github.state.reviews.get(`${REPOSITORY}#${outage.number}`) ?? []).flatMap((posted) => posted.comments).length, { timeout: 15_000 })
      .toBeGreaterThan(0);

    // No retry ran a sandbox: the helpers' results are the review's, never run again.
    const attempts = logLines().filter((line) => line.msg === "review finished" && String(line.jobId).startsWith(`${review}.ai`));
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    for (const attempt of attempts) {
      expect(attempt.helpers).toBe(0);
      expect(sandboxRuns(String(attempt.jobId))).toBe(0);
    }
  }, 240_000);

  it("control: a used-up budget is no outage, and is not retried", async () => {
    up = false;
    // The installation has spent its day's tokens: the broker refuses before any call upstream.
    const redis = await fleet.reviews.client;
    await redis.hset(`reviewbot:llm:installation:${INSTALLATION_ID}:${new Date().toISOString().slice(0, 10)}`, { tokens: "999999999999" });
    const before = model.requests.length;
    const deliveryId = randomUUID();
    expect((await fleet.deliver("pull_request", pullRequestEvent(budget, "opened"), deliveryId)).status).toBe(202);
    const review = reviewJobId({ repositoryId: BUDGET_REPOSITORY_ID, pullNumber: budget.number, deliveryId });
    const run = await waitForCompletedCheckRun(fleet, budget.headSha);
    expect(run.annotations.map((annotation) => [annotation.path, annotation.start_line])).toEqual([["src/calc.ts", 3]]);
    expect(run.output.summary).toContain("**Status:** failed");
    expect(run.output.summary).not.toContain("retried on its own");
    expect(model.requests.length).toBe(before);
    // Past the first retry's delay: none was scheduled.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await fleet.reviews.getJob(`${review}.ai1`)).toBeUndefined();
  }, 240_000);
});
