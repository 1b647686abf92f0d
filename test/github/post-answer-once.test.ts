import { appIdentityOf } from "@reviewbot/github/app-identity";
import { answerMarker, postAnswerOnce } from "@reviewbot/github/post-answer-once";
import { APP_BOT } from "../support/github-stand-in-threads.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APP_ID,
  INSTALLATION_ID,
  REPOSITORY,
  REPOSITORY_ID,
  startGitHubHarness,
  type AppProcess,
  type GitHubHarness,
} from "../support/github-stand-in-harness.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

const [OWNER = "", REPO = ""] = REPOSITORY.split("/");
const SHA = "c".repeat(40);
const BOT = APP_BOT;
const HUMAN = { login: "maintainer", id: 5001, type: "User" } as const;
/** Another App installed on the same repository: its bot user is of type Bot too. */
const OTHER_BOT = { login: "other-app[bot]", id: 149_000_777, type: "Bot" } as const;
const SECRET = `ghs_${"s".repeat(36)}`;

let harness: GitHubHarness;
let process: AppProcess;
let pullNumber = 300;

beforeAll(async () => {
  harness = await startGitHubHarness();
  process = harness.process();
  process.scrubber.register(SECRET);
});
afterAll(async () => {
  await harness.stop();
});

/** A PR with a thread our comment opened and a maintainer's reply in it. */
function threadWithReply(): { readonly pull: number; readonly threadId: number; readonly commentId: number } {
  const pull = ++pullNumber;
  harness.standIn.setPullRequest(REPOSITORY, { number: pull, headSha: SHA, baseSha: "d".repeat(40), baseRef: "main" });
  const threadId = harness.standIn.startThread(REPOSITORY, pull, { ...BOT, commitId: SHA, path: "src/a.ts", line: 2, body: "Subtracts instead of adding." });
  return { pull, threadId, commentId: harness.standIn.reply(REPOSITORY, pull, threadId, { ...HUMAN, body: "Why?" }) };
}

async function answer(pull: number, reply: { threadId: number; commentId: number }, text: string): Promise<number | null> {
  const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
  const identity = await appIdentityOf(process.app, APP_ID)(octokit);
  const target = { octokit, redis: process.redis, keys: DEFAULT_KEYSPACE, repositoryId: REPOSITORY_ID, owner: OWNER, repo: REPO, pullNumber: pull, identity };
  return postAnswerOnce(target, { logger: process.logger, scrubber: process.scrubber }, reply, text);
}

const posts = (pull: number): number => harness.standIn.calls("POST", new RegExp(`^/repos/${REPOSITORY}/pulls/${String(pull)}/comments/\\d+/replies$`)).length;

describe("postAnswerOnce", () => {
  it("posts the answer in the thread once, escaped and scrubbed, ending with the reply's marker", async () => {
    const { pull, ...reply } = threadWithReply();
    const id = await answer(pull, reply, `Because add() must add. @octocat ![x](https://evil.example/x.png) ${SECRET}`);
    expect(id).not.toBeNull();
    const posted = harness.standIn.state.reviewComments.get(id ?? 0);
    expect(posted).toMatchObject({ inReplyToId: reply.threadId, user: BOT });
    expect(posted?.body.endsWith(answerMarker(reply.commentId))).toBe(true);
    expect(posted?.body).not.toMatch(/!\[x\]\(https|(^|[^\w`])@octocat/);
    expect(posted?.body).not.toContain(SECRET);
    // Again (a retried task): Redis remembers it.
    expect(await answer(pull, reply, "a second answer")).toBe(id);
    expect(posts(pull)).toBe(1);
  });

  it("finds its answer in the thread by the marker when Redis lost it, and posts nothing more", async () => {
    const { pull, ...reply } = threadWithReply();
    const id = await answer(pull, reply, "First.");
    await process.redis.del(`reviewbot:answer:${REPOSITORY_ID}:${String(reply.commentId)}`);
    expect(await answer(pull, reply, "Second.")).toBe(id);
    expect(posts(pull)).toBe(1);
  });

  it("is not fooled by a person quoting the marker: only a bot's comment counts (the control answers)", async () => {
    const { pull, ...reply } = threadWithReply();
    harness.standIn.reply(REPOSITORY, pull, reply.threadId, { ...HUMAN, body: `Already answered.\n\n${answerMarker(reply.commentId)}` });
    await process.redis.del(`reviewbot:answer:${REPOSITORY_ID}:${String(reply.commentId)}`);
    const id = await answer(pull, reply, "The real answer.");
    expect(harness.standIn.state.reviewComments.get(id ?? 0)?.user).toEqual(BOT);
    expect(posts(pull)).toBe(1);
  });

  it("is not fooled by another App's bot quoting the marker: only our bot user's id counts", async () => {
    const { pull, ...reply } = threadWithReply();
    const decoy = harness.standIn.reply(REPOSITORY, pull, reply.threadId, { ...OTHER_BOT, body: `Already answered.\n\n${answerMarker(reply.commentId)}` });
    await process.redis.del(`reviewbot:answer:${REPOSITORY_ID}:${String(reply.commentId)}`);
    const id = await answer(pull, reply, "The real answer.");
    expect(id).not.toBe(decoy);
    expect(harness.standIn.state.reviewComments.get(id ?? 0)?.user).toEqual(BOT);
    expect(posts(pull)).toBe(1);
  });

  it("gives null, remembered, when the thread is gone (GitHub's 404), and does not retry it", async () => {
    const { pull, commentId } = threadWithReply();
    const gone = { threadId: 999_999, commentId };
    expect(await answer(pull, gone, "Lost.")).toBeNull();
    expect(await answer(pull, gone, "Lost again.")).toBeNull();
    expect(posts(pull)).toBe(1);
  });
});
