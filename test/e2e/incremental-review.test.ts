import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, startModelStandIn, type ModelStandIn, type ModelStandInRequest } from "@reviewbot/llm/testing/model-stand-in";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import type { WorkTreeWriter } from "../support/git-fixture.js";
import type { StandInCheckRun } from "../support/github-stand-in.js";
import { INSTALLATION_ID, startFleet, type Fleet } from "./fleet-harness.js";
import { forcePushToPull, hostPull, pullRequestEvent, pushToPull, type HostedPull } from "./hosted-pull.js";
import { waitForCompletedCheckRun } from "./check-runs.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

const REPOSITORY = "octo/follow";
const REPOSITORY_ID = 9200;
const MODEL_KEY = `sk-canary-${randomUUID()}`;
const INCREMENTAL = "You reviewed this PR before";

const BUG = "  return a - b;";
const TEMP = "  const temp = x * 1;";
const padding = Array.from({ length: 30 }, (_, i) => `export const k${i} = ${i};`);
const calc = (top: readonly string[], scale: readonly string[], pad = padding) =>
  [
    ...top,
    "export function add(a: number, b: number): number {",
    BUG,
    "}",
    "",
    "export function scale(x: number): number {",
    ...scale,
    "}",
    "",
    ...pad,
    "",
  ].join("\n");
const V1 = calc([], [TEMP, "  return temp * 2;"]);

let fleet: Fleet;
let model: ModelStandIn;
let admin: Redis;
let pull: HostedPull;
/** The text of src/calc.ts at the head under review: the scripted model's findings are placed by it. */
let current = V1;

const lineOf = (text: string, line: string): number => text.split("\n").indexOf(line) + 1;
/** The model: on a full review, two findings on the lines it quotes; on a review of what changed, none. */
function scriptModel(): void {
  model.script((request) => {
    if (request.bodyText.includes(INCREMENTAL)) return reply.toolCall("submit_review", { summary: "Nothing new.", findings: [] });
    const findings = [
      {
        path: "src/calc.ts",
        side: "RIGHT",
        line: lineOf(current, BUG),
        severity: "error",
        category: "bug",
        title: "Subtracts instead of adding",
        body: "Use +.",
        anchorText: BUG,
      },
      ...(current.includes(TEMP)
        ? [
            {
              path: "src/calc.ts",
              side: "RIGHT",
              line: lineOf(current, TEMP),
              severity: "notice",
              category: "maintainability",
              title: "Pointless multiplication",
              body: "x * 1 is x.",
              anchorText: TEMP,
            },
          ]
        : []),
    ];
    return reply.toolCall("submit_review", { summary: "Reviewed.", findings });
  });
}

beforeAll(async () => {
  model = await startModelStandIn({ apiKey: MODEL_KEY });
  scriptModel();
  fleet = await startFleet({
    repositories: { [REPOSITORY]: REPOSITORY_ID },
    apiEnv: {
      REVIEWBOT_LLM_BASE_URL: model.url("openai"),
      REVIEWBOT_LLM_MODEL: "stand-in-coder",
      REVIEWBOT_LLM_API_KEY: MODEL_KEY,
      REVIEWBOT_LLM_MAX_TOKENS: "2048",
    },
  });
  admin = new Redis(fleet.redis.url, { maxRetriesPerRequest: 1 });
  pull = hostPull(fleet, {
    repository: REPOSITORY,
    repositoryId: REPOSITORY_ID,
    number: 31,
    helpers: [],
    fork: (tree) => {
      tree.write("src/calc.ts", V1);
    },
  });
}, 240_000);

afterAll(async () => {
  admin.disconnect();
  await (fleet as Fleet | undefined)?.stop();
  await (model as ModelStandIn | undefined)?.close();
});

const comments = () => [...fleet.github.state.reviews.values()].flat().flatMap((review) => review.comments);

/** Delivers `action` for the PR's head and waits until its review is published and remembered. */
async function reviewHead(action: string): Promise<{ summary: string; annotations: StandInCheckRun["annotations"]; requests: ModelStandInRequest[] }> {
  const before = model.modelRequests("openai").length;
  expect((await fleet.deliver("pull_request", pullRequestEvent(pull, action))).status).toBe(202);
  const run = await waitForCompletedCheckRun(fleet, pull.headSha);
  await expect
    .poll(async () => (await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).reviewedHead, { timeout: 30_000 })
    .toBe(pull.headSha);
  return { summary: run.output.summary ?? "", annotations: run.annotations, requests: model.modelRequests("openai").slice(before) };
}

async function push(edit: (tree: WorkTreeWriter) => void, text: string): ReturnType<typeof reviewHead> {
  current = text;
  pushToPull(fleet, pull, edit);
  return reviewHead("synchronize");
}

describe("reviews that follow the PR (fleet, stand-in model and GitHub)", () => {
  it("comments once over five pushes: later pushes are reviewed from the last review, earlier findings carried to their moved lines", async () => {
    const first = await reviewHead("opened");
    expect(first.requests.some((request) => request.bodyText.includes(INCREMENTAL))).toBe(false);
    expect(comments().map((comment) => comment.line)).toEqual([lineOf(V1, BUG), lineOf(V1, TEMP)]);

    // Push 2: a line above both findings, so both move down one line.
    const v2 = calc(["// calc helpers"], [TEMP, "  return temp * 2;"]);
    const second = await push((tree) => {
      tree.write("src/calc.ts", v2);
    }, v2);
    expect(second.requests.length).toBeGreaterThan(0);
    expect(second.requests.every((request) => request.bodyText.includes(INCREMENTAL))).toBe(true);
    // The incremental review sent the model less than the first (the same prompt, a smaller diff).
    const sent = (requests: ModelStandInRequest[]) => requests.reduce((sum, request) => sum + request.bodyText.length, 0);
    expect(sent(second.requests)).toBeLessThan(sent(first.requests));
    expect(second.summary).toContain("**Incremental:**");
    // The check run shows the whole PR: both findings, carried to their new lines.
    expect(second.annotations.map((annotation) => annotation.start_line).sort((a, b) => a - b)).toEqual([lineOf(v2, BUG), lineOf(v2, TEMP)]);

    // Push 3 removes the line of the second finding; pushes 4 and 5 touch nothing near either.
    const v3 = calc(["// calc helpers"], ["  return x * 2;"]);
    await push((tree) => {
      tree.write("src/calc.ts", v3);
    }, v3);
    const v4 = calc(
      ["// calc helpers"],
      ["  return x * 2;"],
      padding.map((line, index) => (index === 20 ? "export const k20 = 21;" : line)),
    );
    await push((tree) => {
      tree.write("src/calc.ts", v4);
    }, v4);
    const fifth = await push((tree) => {
      tree.write("src/other.ts", "export const other = 1;\n");
    }, v4);

    expect(comments()).toHaveLength(2);
    // The comment on the removed line: its thread, outdated and unanswered, was resolved once; the other stays open.
    const threads = [...fleet.github.state.threads.values()];
    expect(threads.map((thread) => thread.isResolved)).toEqual([false, true]);
    const resolving = fleet.github.requests.filter((request) => request.path === "/graphql" && JSON.stringify(request.body).includes("resolveReviewThread"));
    expect(resolving).toHaveLength(1);
    const memory = await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number);
    expect(memory.ai.map((entry) => [entry.finding.title, entry.finding.line])).toEqual([["Subtracts instead of adding", lineOf(v4, BUG)]]);
    expect(fifth.summary).toContain("**Incremental:**");
  }, 300_000);

  it("reviews a force-pushed PR whole, and still does not repeat a comment whose line reads the same", async () => {
    const before = comments().length;
    const rewritten = calc([], ["  return x * 2;"]);
    current = rewritten;
    forcePushToPull(fleet, pull, (tree) => {
      tree.write("src/calc.ts", rewritten);
    });
    const forced = await reviewHead("synchronize");
    expect(forced.requests.length).toBeGreaterThan(0);
    expect(forced.requests.some((request) => request.bodyText.includes(INCREMENTAL))).toBe(false);
    expect(forced.summary).not.toContain("**Incremental:**");
    // The model found the bug again, on another line number: same path, title and line text.
    expect(comments()).toHaveLength(before);
  }, 180_000);

  it("reviews the PR whole on a maintainer's `/review`, though an earlier review could be started from", async () => {
    // A push whose webhook never came: the last review's head is an ancestor of the new one.
    const missed = calc([], ["  return x * 3;"]);
    current = missed;
    pushToPull(fleet, pull, (tree) => {
      tree.write("src/calc.ts", missed);
    });
    const before = model.modelRequests("openai").length;
    const command = {
      action: "created",
      installation: { id: INSTALLATION_ID },
      repository: { id: REPOSITORY_ID, full_name: REPOSITORY },
      issue: { number: pull.number, state: "open", pull_request: { url: `https://api.github.com/repos/${REPOSITORY}/pulls/${String(pull.number)}` } },
      comment: { id: 4242, body: "/review", author_association: "MEMBER", user: { login: "maintainer", type: "User" } },
    };
    expect((await fleet.deliver("issue_comment", command)).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, pull.headSha);
    const requests = model.modelRequests("openai").slice(before);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.some((request) => request.bodyText.includes(INCREMENTAL))).toBe(false);
    expect(run.output.summary).not.toContain("**Incremental:**");
  }, 180_000);
});
