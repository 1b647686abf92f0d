import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, startModelStandIn, type ModelStandIn, type ModelStandInRequest } from "@reviewbot/llm/testing/model-stand-in";
import { dismissedCount } from "@reviewbot/github/dismissed-count";
import { readReviewMemory, reviewMemoryKey } from "@reviewbot/github/review-memory";
import type { StandInUser } from "../support/github-stand-in-threads.js";
import { INSTALLATION_ID, startFleet, type Fleet } from "./fleet-harness.js";
import { forcePushToPull, hostPull, pullRequestEvent, pushToPull, type HostedPull } from "./hosted-pull.js";
import { waitForCompletedCheckRun } from "./check-runs.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// Dismissals that stick (issue 23, part 3), through the fleet: real api and workers, Redis with its
// ACL users, the GitHub stand-in and the stand-in model. Five findings: three dismissed by a member
// (a resolved thread, a 👎, a `won't fix` reply), one left alone, one that only untrusted people
// and apps tried to dismiss. After a push, a maintainer's `/review` (the whole PR) and a
// force-push that moves every line, only the last two are raised.

const REPOSITORY = "octo/dismiss";
const REPOSITORY_ID = 9400;
const MODEL_KEY = `sk-canary-${randomUUID()}`;
const INCREMENTAL = "You reviewed this PR before";

const FINDINGS = {
  resolved: { line: "  const resolved = a * 1;", title: "Resolved by a member" },
  thumbsDown: { line: "  const reacted = a * 2;", title: "Thumbs down from a member" },
  wontFix: { line: "  const replied = a * 3;", title: "Won't fix, says a member" },
  kept: { line: "  const kept = a * 4;", title: "Nobody dismissed this" },
  untrusted: { line: "  const tried = a * 5;", title: "Only strangers and apps tried" },
} as const;
type Name = keyof typeof FINDINGS;
const NAMES = Object.keys(FINDINGS) as Name[];
const source = (top: readonly string[]) =>
  [...top, "export function f(a: number): number {", ...NAMES.map((name) => FINDINGS[name].line), "  return a;", "}", ""].join("\n");

const MEMBER: StandInUser = { login: "maintainer", id: 6001, type: "User" };
const AUTHOR: StandInUser = { login: "contributor", id: 6002, type: "User" };
const STRANGER: StandInUser = { login: "passer-by", id: 6003, type: "User" };
const APP: StandInUser = { login: "other-app[bot]", id: 149_000_778, type: "Bot" };

let fleet: Fleet;
let model: ModelStandIn;
let admin: Redis;
let pull: HostedPull;
let current = source([]);

const isAnswerCall = (request: ModelStandInRequest): boolean => request.bodyText.includes('"submit_answer"');
const lineOf = (text: string, line: string): number => text.split("\n").indexOf(line) + 1;

beforeAll(async () => {
  model = await startModelStandIn({ apiKey: MODEL_KEY });
  // A whole review finds all five on the lines they quote; an incremental one nothing new (the five are carried).
  model.script((request) => {
    if (isAnswerCall(request)) return reply.toolCall("submit_answer", { answer: "An answer." });
    if (request.bodyText.includes(INCREMENTAL)) return reply.toolCall("submit_review", { summary: "Nothing new.", findings: [] });
    const findings = NAMES.map((name) => ({
      path: "src/f.ts",
      side: "RIGHT",
      line: lineOf(current, FINDINGS[name].line),
      severity: "warning",
      category: "bug",
      title: FINDINGS[name].title,
      body: "Why multiply?",
      anchorText: FINDINGS[name].line,
    }));
    return reply.toolCall("submit_review", { summary: "Reviewed.", findings });
  });
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
  fleet.github.setRole(REPOSITORY, MEMBER, { association: "MEMBER", permission: "write" });
  fleet.github.setRole(REPOSITORY, AUTHOR, { association: "CONTRIBUTOR", permission: "read" });
  pull = hostPull(fleet, {
    repository: REPOSITORY,
    repositoryId: REPOSITORY_ID,
    number: 51,
    helpers: [],
    fork: (tree) => {
      tree.write("src/f.ts", current);
    },
  });
}, 240_000);

afterAll(async () => {
  admin.disconnect();
  await (fleet as Fleet | undefined)?.stop();
  await (model as ModelStandIn | undefined)?.close();
});

/** Our review comments on the PR, by the finding title they carry. */
const commentsOn = (name: Name): number =>
  [...fleet.github.state.reviewComments.values()].filter((comment) => comment.user.type === "Bot" && comment.body.includes(FINDINGS[name].title)).length;
/** The finding titles the check run of the PR's head annotates. */
async function annotatedAt(deliver: () => Promise<void>): Promise<string[]> {
  await deliver();
  const run = await waitForCompletedCheckRun(fleet, pull.headSha);
  await expect
    .poll(async () => (await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).reviewedHead, { timeout: 30_000 })
    .toBe(pull.headSha);
  return NAMES.filter((name) => run.annotations.some((annotation) => annotation.message.startsWith(FINDINGS[name].title)));
}
const pullRequestDelivery = async (): Promise<void> => {
  expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "synchronize"))).status).toBe(202);
};

/** Someone replies in our thread of `name` and GitHub delivers it; returns what the api answered. */
async function replyTo(name: Name, user: StandInUser, association: string, body: string): Promise<string> {
  const root = await commentOf(name);
  const id = fleet.github.reply(REPOSITORY, pull.number, root, { ...user, body });
  const event = {
    action: "created",
    installation: { id: INSTALLATION_ID },
    repository: { id: REPOSITORY_ID, full_name: REPOSITORY, default_branch: "main" },
    comment: { id, in_reply_to_id: root, body, author_association: association, user },
    pull_request: {
      number: pull.number,
      state: "open",
      updated_at: new Date().toISOString(),
      head: { sha: pull.headSha, ref: "fork" },
      base: { sha: pull.baseSha, ref: "main" },
    },
  };
  const delivered = await fleet.deliver("pull_request_review_comment", event);
  expect(delivered.status).toBe(202);
  const answer = JSON.parse(delivered.body) as { status: string; reason?: string };
  return answer.reason ?? answer.status;
}

/** The id of our comment that opened the thread of `name` (the api's memory of what it posted). */
async function commentOf(name: Name): Promise<number> {
  const comment = [...fleet.github.state.reviewComments.values()].find(
    (each) => each.user.type === "Bot" && each.inReplyToId === null && each.body.includes(FINDINGS[name].title),
  );
  if (comment === undefined) throw new Error(`no comment of ours for ${name}`);
  const posted = Object.values((await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).posted);
  expect(posted).toContain(comment.id);
  return comment.id;
}

describe("dismissals that stick (fleet, stand-in model and GitHub)", () => {
  it("raises every finding on the first review, as comments and annotations", async () => {
    const annotated = await annotatedAt(async () => {
      expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"))).status).toBe(202);
    });
    expect(annotated).toEqual(NAMES);
    await expect
      .poll(async () => Object.keys((await readReviewMemory(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).posted).length, { timeout: 30_000 })
      .toBe(5);
    for (const name of NAMES) expect(commentsOn(name)).toBe(1);
  }, 240_000);

  it("records a member's `won't fix` reply at once, and never asks the model to answer it", async () => {
    const asked = model.modelRequests("openai").filter(isAnswerCall).length;
    expect(await replyTo("wontFix", MEMBER, "MEMBER", "Won't fix: the multiplication documents the unit.")).toBe("dismissed");
    expect(await dismissedCount(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(1);
    // A redelivery of the same reply under a new id dismisses nothing more.
    expect(await replyTo("wontFix", MEMBER, "MEMBER", "won't fix")).toBe("dismissed");
    expect(await dismissedCount(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(model.modelRequests("openai").filter(isAnswerCall)).toHaveLength(asked);
  }, 60_000);

  it("does not take a dismissal reply from someone without a role, or from an app that is a member", async () => {
    expect(await replyTo("untrusted", STRANGER, "NONE", "false positive")).toBe("author_not_trusted");
    expect(await replyTo("untrusted", AUTHOR, "CONTRIBUTOR", "won't fix")).toBe("author_not_trusted");
    expect(await replyTo("untrusted", APP, "MEMBER", "won't fix")).toBe("bot_author");
    expect(await dismissedCount(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(1);
  });

  it("after a push, a `/review` of the whole PR and a force-push, raises what was not dismissed and nothing that was", async () => {
    // The member resolves one thread and 👎s another; GitHub sends no webhook for a reaction.
    fleet.github.resolveThread(REPOSITORY, pull.number, await commentOf("resolved"), MEMBER);
    fleet.github.react(REPOSITORY, pull.number, await commentOf("thumbsDown"), MEMBER, "-1");
    // The same by the PR's author (who may resolve threads on their PR), a stranger and an app: not dismissals.
    const tried = await commentOf("untrusted");
    fleet.github.resolveThread(REPOSITORY, pull.number, tried, AUTHOR);
    fleet.github.react(REPOSITORY, pull.number, tried, STRANGER, "-1");
    fleet.github.react(REPOSITORY, pull.number, tried, APP, "-1");
    fleet.github.react(REPOSITORY, pull.number, await commentOf("kept"), MEMBER, "+1");

    current = source(["// a push that moves nothing below"]);
    const pushed = await annotatedAt(async () => {
      pushToPull(fleet, pull, (tree) => {
        tree.write("src/f.ts", current);
      });
      await pullRequestDelivery();
    });
    expect(pushed).toEqual(["kept", "untrusted"]);
    expect(await dismissedCount(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(3);
    // Trust was asked of GitHub for the resolvers and reactors who are people, never for the app.
    const asked = fleet.github.calls("GET", /\/collaborators\/[^/]+\/permission$/).map((request) => decodeURIComponent(request.path.split("/")[5] ?? ""));
    expect(new Set(asked)).toEqual(new Set([MEMBER.login, AUTHOR.login, STRANGER.login]));

    // A maintainer's `/review`: the whole PR again, every finding found again by the model.
    const whole = await annotatedAt(async () => {
      const command = {
        action: "created",
        installation: { id: INSTALLATION_ID },
        repository: { id: REPOSITORY_ID, full_name: REPOSITORY },
        issue: { number: pull.number, state: "open", pull_request: {} },
        comment: { id: 4343, body: "/review", author_association: "MEMBER", user: { login: MEMBER.login, type: "User" } },
      };
      current = source(["// a push whose webhook never came", "// so /review sees a new head"]);
      pushToPull(fleet, pull, (tree) => {
        tree.write("src/f.ts", current);
      });
      expect((await fleet.deliver("issue_comment", command)).status).toBe(202);
    });
    expect(whole).toEqual(["kept", "untrusted"]);

    // A force-push: the PR rewritten from the base, every finding on another line number.
    const forced = await annotatedAt(async () => {
      current = source(["// rewritten", "// by a force-push", "// three lines down"]);
      forcePushToPull(fleet, pull, (tree) => {
        tree.write("src/f.ts", current);
      });
      await pullRequestDelivery();
    });
    expect(forced).toEqual(["kept", "untrusted"]);
    expect(model.modelRequests("openai").at(-1)?.bodyText).not.toContain(INCREMENTAL);
    // No dismissed finding was commented on again; nothing was commented twice.
    for (const name of NAMES) expect(commentsOn(name)).toBe(1);
    expect(await dismissedCount(admin, DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number)).toBe(3);
  }, 480_000);

  it("drops dismissed findings from the comments too when the review memory of what was posted is lost", async () => {
    // Without its memory the api no longer knows what it commented on: every finding would be a new comment.
    await admin.del(reviewMemoryKey(DEFAULT_KEYSPACE, REPOSITORY_ID, pull.number));
    const annotated = await annotatedAt(async () => {
      current = source(["// after the memory was lost"]);
      pushToPull(fleet, pull, (tree) => {
        tree.write("src/f.ts", current);
      });
      await pullRequestDelivery();
    });
    expect(annotated).toEqual(["kept", "untrusted"]);
    // Negative control: the two findings nobody dismissed were commented on again; the three dismissed were not.
    await expect.poll(() => NAMES.map(commentsOn), { timeout: 30_000 }).toEqual([1, 1, 1, 2, 2]);
  }, 240_000);
});
