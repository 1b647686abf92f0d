import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, startModelStandIn, type ModelStandIn, type ModelStandInRequest } from "@reviewbot/llm/testing/model-stand-in";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import { SUMMARY_MARKER } from "@reviewbot/github/upsert-summary-comment";
import { isPaused } from "@reviewbot/queue/pause-state";
import { APP_BOT, type StandInUser } from "../support/github-stand-in-threads.js";
import { INSTALLATION_ID, startFleet, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, pushToPull, type HostedPull } from "./hosted-pull.js";
import { checkRunsOf, waitForCompletedCheckRun } from "./check-runs.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

const REPOSITORY = "octo/commands";
const REPOSITORY_ID = 9400;
const MODEL_KEY = `sk-canary-${randomUUID()}`;
const INCREMENTAL = "You reviewed this PR before";
const BUG = "  return a - b;";
const CALC = ["export function add(a: number, b: number): number {", BUG, "}", ""];
// Only the first review and `full review` show the model this file: no push touches it.
const OTHER = "src/other.ts";

let fleet: Fleet;
let model: ModelStandIn;
let admin: Redis;
let pull: HostedPull;
let thread = 0;

const MAINTAINER: StandInUser = { login: "maintainer", id: 6001, type: "User" };
const requests = (): ModelStandInRequest[] => model.modelRequests("openai");

beforeAll(async () => {
  model = await startModelStandIn({ apiKey: MODEL_KEY });
  model.script((request) =>
    reply.toolCall("submit_review", {
      summary: "Reviewed.",
      findings: request.bodyText.includes(INCREMENTAL)
        ? []
        : [{ path: "src/calc.ts", side: "RIGHT", line: 2, severity: "error", category: "bug", title: "Subtracts", body: "Use +.", anchorText: BUG }],
    }),
  );
  fleet = await startFleet({
    repositories: { [REPOSITORY]: REPOSITORY_ID },
    workers: 1,
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
    number: 7,
    helpers: [],
    // Anyone can write the PR's description: a command there is no command.
    text: { title: "Add add()", body: "@reviewbot ignore\n@reviewbot pause" },
    fork: (tree) => {
      tree.write("src/calc.ts", CALC.join("\n"));
      tree.write(OTHER, "export const other = 1;\n");
    },
  });
  expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"))).status).toBe(202);
  await waitForCompletedCheckRun(fleet, pull.headSha);
  for (let waited = 0; thread === 0 && waited < 30_000; waited += 100) {
    thread = (await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).comments[0] ?? 0;
    if (thread === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (thread === 0) throw new Error(`the first review posted no comment:\n${fleet.allLogs().slice(-4000)}`);
}, 240_000);

afterAll(async () => {
  admin.disconnect();
  await (fleet as Fleet | undefined)?.stop();
  await (model as ModelStandIn | undefined)?.close();
});

interface Delivered {
  readonly id: number;
  readonly status: string;
  readonly again: () => Promise<string>;
}

/** Someone comments `body` on the PR and GitHub delivers it; `again` redelivers it under the same delivery id. */
async function comment(body: string, user: StandInUser = MAINTAINER, association = "MEMBER"): Promise<Delivered> {
  const id = fleet.github.issueComment(REPOSITORY, pull.number, user, body);
  const event = {
    action: "created",
    installation: { id: INSTALLATION_ID },
    repository: { id: REPOSITORY_ID, full_name: REPOSITORY, default_branch: "main" },
    issue: { number: pull.number, state: "open", pull_request: { url: "x" } },
    comment: { id, body, author_association: association, user },
  };
  return delivered(id, "issue_comment", event);
}

/** A maintainer replies `body` in our review thread. */
async function replyInThread(body: string): Promise<Delivered> {
  const id = fleet.github.reply(REPOSITORY, pull.number, thread, { ...MAINTAINER, body });
  const event = {
    action: "created",
    installation: { id: INSTALLATION_ID },
    repository: { id: REPOSITORY_ID, full_name: REPOSITORY, default_branch: "main" },
    comment: { id, in_reply_to_id: thread, body, author_association: "MEMBER", user: MAINTAINER },
    pull_request: {
      number: pull.number,
      state: "open",
      updated_at: new Date().toISOString(),
      head: { sha: pull.headSha, ref: "fork" },
      base: { sha: pull.baseSha, ref: "main" },
    },
  };
  return delivered(id, "pull_request_review_comment", event);
}

async function delivered(id: number, event: string, body: unknown): Promise<Delivered> {
  const deliveryId = randomUUID();
  const send = async (): Promise<string> => {
    const answer = await fleet.deliver(event, body, deliveryId);
    expect(answer.status).toBe(202);
    const parsed = JSON.parse(answer.body) as { status: string; reason?: string };
    return parsed.reason ?? parsed.status;
  };
  return { id, status: await send(), again: send };
}

/** Pushes a commit to the PR; `send` delivers its `synchronize` event (again under the same delivery id). */
function pushDelivered(): { send: () => Promise<string> } {
  pushToPull(fleet, pull, (tree) => {
    tree.write("src/calc.ts", [...CALC, `export const pushed = "${randomUUID()}";`, ""].join("\n"));
  });
  const event = pullRequestEvent(pull, "synchronize");
  const deliveryId = randomUUID();
  return {
    send: async () => {
      const answer = await fleet.deliver("pull_request", event, deliveryId);
      expect(answer.status).toBe(202);
      const parsed = JSON.parse(answer.body) as { status: string; reason?: string };
      return parsed.reason ?? parsed.status;
    },
  };
}

const push = (): Promise<string> => pushDelivered().send();

const eyes = (subject: "issue" | "review", id: number): number =>
  fleet.github.state.reactions.filter((r) => r.subject === subject && r.commentId === id && r.content === "eyes").length;
const helpReplies = (): string[] =>
  [...fleet.github.state.issueComments.values(), ...fleet.github.state.reviewComments.values()]
    // Our summary comment lists the commands too: not a reply.
    .filter((posted) => posted.user.id === APP_BOT.id && !posted.body.startsWith(SUMMARY_MARKER) && posted.body.includes("@reviewbot full review"))
    .map((posted) => posted.body);
/** Our summary comment on the PR (the one issue comment of ours that starts with its marker). */
const summaryBody = (): string =>
  [...fleet.github.state.issueComments.values()].find((posted) => posted.user.id === APP_BOT.id && posted.body.startsWith(SUMMARY_MARKER))?.body ?? "";
const completedRuns = (headSha: string): number => checkRunsOf(fleet, headSha).filter((run) => run.status === "completed").length;
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2000));

describe("commands from trusted people", () => {
  it("help (and an unknown command): 👀 and the command list, once each, though the delivery comes again", async () => {
    const help = await comment("@reviewbot help");
    expect(help.status).toBe("accepted");
    await expect.poll(() => eyes("issue", help.id), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => helpReplies().length, { timeout: 30_000 }).toBe(1);
    expect(await help.again()).toBe("duplicate");
    const unknown = await comment("@ReviewBot dance");
    expect(unknown.status).toBe("accepted");
    await expect.poll(() => helpReplies().length, { timeout: 30_000 }).toBe(2);
    expect(eyes("issue", unknown.id)).toBe(1);
    const inThread = await replyInThread("@reviewbot help");
    expect(inThread.status).toBe("accepted");
    await expect.poll(() => eyes("review", inThread.id), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => helpReplies().length, { timeout: 30_000 }).toBe(3);
    const answered = [...fleet.github.state.reviewComments.values()].filter((posted) => posted.user.id === APP_BOT.id && posted.inReplyToId === thread);
    expect(answered.map((posted) => posted.body)).toEqual([expect.stringContaining("@reviewbot pause")]);
    await settle();
    expect(helpReplies()).toHaveLength(3);
    expect([eyes("issue", help.id), eyes("issue", unknown.id), eyes("review", inThread.id)]).toEqual([1, 1, 1]);
  }, 120_000);

  it.each([
    ["someone without a role", { login: "passer-by", id: 6002, type: "User" }, "NONE", "author_not_trusted"],
    ["the PR's author", { login: "contributor", id: 6003, type: "User" }, "CONTRIBUTOR", "author_not_trusted"],
    ["an app, though a member", { login: "other-app[bot]", id: 149_000_888, type: "Bot" }, "MEMBER", "bot_author"],
  ] as const)("does nothing for %s: no reaction, no pause", async (_name, user, association, reason) => {
    const ignored = await comment("@reviewbot pause", user, association);
    expect(ignored.status).toBe(reason);
    await settle();
    expect(eyes("issue", ignored.id)).toBe(0);
    expect(await isPaused(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(false);
  });

  it("pause: a push is not reviewed (no model call; its check run says paused) while commands still work; resume: the next push is", async () => {
    // The description's `@reviewbot pause` paused nothing: a push is reviewed, only what it changed.
    const calls = requests().length;
    expect(await push()).toBe("accepted");
    await waitForCompletedCheckRun(fleet, pull.headSha);
    expect(
      requests()
        .slice(calls)
        .every((request) => request.bodyText.includes(INCREMENTAL)),
    ).toBe(true);

    const pause = await comment("@reviewbot pause");
    expect(pause.status).toBe("accepted");
    await expect.poll(() => eyes("issue", pause.id), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => isPaused(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number), { timeout: 30_000 }).toBe(true);
    const pausedCalls = requests().length;
    const pausedPush = pushDelivered();
    expect(await pausedPush.send()).toBe("paused");
    const paused = await waitForCompletedCheckRun(fleet, pull.headSha);
    expect([paused.conclusion, paused.output.title]).toEqual(["skipped", "Review paused"]);
    expect(paused.output.summary).toContain("the `pause` command");
    // A redelivered push makes no second check run.
    expect(await pausedPush.send()).toBe("duplicate");
    await settle();
    expect(checkRunsOf(fleet, pull.headSha)).toHaveLength(1);
    expect(requests()).toHaveLength(pausedCalls);

    // `review` while paused: the head the push left is reviewed now, from the last review, in a run of its own.
    const review = await comment("@reviewbot review");
    expect(review.status).toBe("accepted");
    await expect
      .poll(() => checkRunsOf(fleet, pull.headSha).filter((run) => run.id !== paused.id && run.status === "completed").length, { timeout: 120_000 })
      .toBe(1);
    expect(eyes("issue", review.id)).toBe(1);
    // The summary comment, edited by that review, says the PR is paused.
    await expect.poll(() => summaryBody(), { timeout: 30_000 }).toContain("**Paused:**");
    expect(requests().length).toBeGreaterThan(pausedCalls);
    expect(
      requests()
        .slice(pausedCalls)
        .every((request) => request.bodyText.includes(INCREMENTAL)),
    ).toBe(true);

    const resume = await comment("@reviewbot resume");
    expect(resume.status).toBe("accepted");
    await expect.poll(() => isPaused(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number), { timeout: 30_000 }).toBe(false);
    expect(eyes("issue", resume.id)).toBe(1);
    expect(await push()).toBe("accepted");
    await waitForCompletedCheckRun(fleet, pull.headSha);
    await expect.poll(() => summaryBody(), { timeout: 30_000 }).not.toContain("**Paused:**");
  }, 300_000);

  it("full review: the model is shown every file again, the ones no push touched included", async () => {
    const calls = requests().length;
    expect(
      requests()
        .slice(calls - 1)
        .some((request) => request.bodyText.includes(OTHER)),
    ).toBe(false);
    const full = await comment("@reviewbot full review");
    expect(full.status).toBe("accepted");
    await expect.poll(() => completedRuns(pull.headSha), { timeout: 120_000 }).toBe(2);
    expect(eyes("issue", full.id)).toBe(1);
    const shown = requests().slice(calls);
    expect(shown.some((request) => request.bodyText.includes(OTHER))).toBe(true);
    expect(shown.some((request) => request.bodyText.includes(INCREMENTAL))).toBe(false);
  }, 180_000);

  it("resolve: every open thread of ours is resolved, once, and a redelivery does nothing more", async () => {
    const ours = [...fleet.github.state.threads.values()].filter((t) => t.commentIds[0] === thread);
    expect(ours.map((t) => t.isResolved)).toEqual([false]);
    const resolve = await comment("@reviewbot resolve");
    expect(resolve.status).toBe("accepted");
    await expect.poll(() => ours[0]?.isResolved, { timeout: 30_000 }).toBe(true);
    expect(eyes("issue", resolve.id)).toBe(1);
    const mutations = () => fleet.github.calls("POST", /^\/graphql$/).filter((call) => JSON.stringify(call.body).includes("resolveReviewThread")).length;
    const before = mutations();
    expect(await resolve.again()).toBe("duplicate");
    await settle();
    expect(mutations()).toBe(before);
  }, 120_000);

  it("summary: 👀 and a summary task for the publisher", async () => {
    const summary = await comment("@reviewbot summary");
    expect(summary.status).toBe("accepted");
    await expect.poll(() => eyes("issue", summary.id), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => fleet.allLogs().includes("summary refresh"), { timeout: 30_000 }).toBe(true);
  }, 60_000);
});
