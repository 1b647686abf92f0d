import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAppError } from "@reviewbot/core/errors";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { resolveOutdatedThreads } from "@reviewbot/github/resolve-outdated-threads";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUpstream, type Upstream } from "../support/git-fixture.js";
import type { RecordedRequest } from "../support/github-stand-in.js";
import { INSTALLATION_ID, REPOSITORY, REPOSITORY_ID, startGitHubHarness, type AppProcess, type GitHubHarness } from "../support/github-stand-in-harness.js";
import { APP_BOT } from "../support/github-stand-in-threads.js";
import { isOutdated, type StandInThread } from "../support/github-stand-in-threads.js";

const APP_TS = "src/app.ts";
const [OWNER = "", REPO = ""] = REPOSITORY.split("/");
// The second push edits these lines of src/app.ts and inserts one above them all, so every other line moves down one.
const EDITED = new Set([3, 7, 9, 11]);
const HUMAN = { login: "octocat", id: 583231, type: "User" } as const;

let root: string;
let upstream: Upstream;
let harness: GitHubHarness;
let firstPush: string;
let secondPush: string;
let pullCounter = 200;

const appLines = (line: (n: number) => string): string => Array.from({ length: 20 }, (_, i) => line(i + 1)).join("");

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "reviewbot-threads-"));
  upstream = createUpstream(root, { ai: false });
  firstPush = upstream.commitOn("fork", (tree) => {
    tree.write(
      APP_TS,
      appLines((n) => `export const line${n} = ${n}; // reviewed\n`),
    );
  });
  secondPush = upstream.commitOn("fork", (tree) => {
    tree.write(
      APP_TS,
      `// moves every line down\n${appLines((n) => (EDITED.has(n) ? `export const line${n} = -${n};\n` : `export const line${n} = ${n}; // reviewed\n`))}`,
    );
  });
  // Commits never change, so what git shows once can be kept.
  const shown = new Map<string, string | null>();
  const fileAt = (sha: string, path: string): string | null => {
    const key = `${sha}:${path}`;
    if (!shown.has(key)) {
      try {
        shown.set(key, upstream.gitBytes(["show", key]).toString("utf8"));
      } catch {
        shown.set(key, null);
      }
    }
    return shown.get(key) ?? null;
  };
  harness = await startGitHubHarness({ fileAt });
});
afterAll(async () => {
  await harness.stop();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  harness.standIn.requests.length = 0;
  harness.standIn.clearFaults();
});

/** Points PR `number` (a new one unless given) at `headSha`: a push, when it already exists. */
function pullAt(headSha: string, number = ++pullCounter): number {
  harness.standIn.setPullRequest(REPOSITORY, { number, headSha, baseSha: upstream.rev("main"), baseRef: "main", hunks: { [APP_TS]: [[1, 21]] } });
  return number;
}

type Installation = Awaited<ReturnType<AppProcess["app"]["getInstallationOctokit"]>>;

/** Posts a review of ours at the first push, and reads back the ids GitHub gave its comments, by line. */
async function postOurReview(octokit: Installation, pullNumber: number, lines: readonly number[]): Promise<Map<number, number>> {
  const { data: review } = await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
    owner: OWNER,
    repo: REPO,
    pull_number: pullNumber,
    commit_id: firstPush,
    event: "COMMENT",
    body: "review",
    comments: lines.map((line) => ({ path: APP_TS, line, side: "RIGHT", body: `finding on ${line}` })),
  });
  const { data: comments } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments", {
    owner: OWNER,
    repo: REPO,
    pull_number: pullNumber,
    review_id: Number(review.id),
  });
  return new Map(comments.map((comment) => [comment.original_line ?? 0, Number(comment.id)]));
}

function threadOf(commentId: number | undefined): StandInThread {
  const thread = [...harness.standIn.state.threads.values()].find((t) => t.commentIds[0] === commentId);
  if (thread === undefined) throw new Error(`no thread starts with comment ${String(commentId)}`);
  return thread;
}

const graphqlCalls = (operation: "query" | "mutation"): RecordedRequest[] =>
  harness.standIn.calls("POST", /^\/graphql$/).filter((r) => (r.body as { query: string }).query.trimStart().startsWith(operation));
const resolvedIds = (): unknown[] => graphqlCalls("mutation").map((r) => (r.body as { variables: { id: unknown } }).variables.id);
const pull = (pullNumber: number) => ({ owner: OWNER, repo: REPO, pullNumber });

describe("resolveOutdatedThreads", () => {
  it("resolves our outdated, unanswered threads and leaves every other thread open", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const ours = await postOurReview(octokit, number, [3, 5, 7, 11]);
    const isOurs = (id: number): boolean => [...ours.values()].includes(id);
    const humans = harness.standIn.startThread(REPOSITORY, number, { ...HUMAN, commitId: firstPush, path: APP_TS, line: 9, body: "Why nine?" });
    harness.standIn.reply(REPOSITORY, number, ours.get(7) ?? 0, { ...HUMAN, body: "Keep this open, please." });

    // Before the push nothing is outdated: everything of ours is kept.
    expect(await resolveOutdatedThreads(octokit, pull(number), isOurs, process.logger)).toEqual({ resolved: 0, kept: 4 });
    expect(graphqlCalls("mutation")).toEqual([]);

    pullAt(secondPush, number);
    // Each control differs from the resolved threads in one respect: 5 is current (it only moved), 7 has a reply, 9 is a human's.
    const outdated = (commentId: number | undefined): boolean => isOutdated(harness.standIn.state, threadOf(commentId));
    expect([3, 5, 7, 11].map((line) => outdated(ours.get(line)))).toEqual([true, false, true, true]);
    expect(outdated(humans)).toBe(true);

    expect(await resolveOutdatedThreads(octokit, pull(number), isOurs, process.logger)).toEqual({ resolved: 2, kept: 2 });
    expect(resolvedIds()).toEqual([threadOf(ours.get(3)).id, threadOf(ours.get(11)).id]);
    const open = [5, 7].map((line) => threadOf(ours.get(line))).concat(threadOf(humans));
    expect(open.map((thread) => thread.isResolved)).toEqual([false, false, false]);

    // A second sweep finds the two resolved and sends no mutation.
    harness.standIn.requests.length = 0;
    expect(await resolveOutdatedThreads(octokit, pull(number), isOurs, process.logger)).toEqual({ resolved: 0, kept: 2 });
    expect(graphqlCalls("query")).toHaveLength(1);
    expect(graphqlCalls("mutation")).toEqual([]);
  });

  it("follows the pages past 100 threads", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const bot = APP_BOT;
    // 149 current threads, then one on an edited line: only the second page holds it.
    const ids = Array.from({ length: 150 }, (_, i) =>
      harness.standIn.startThread(REPOSITORY, number, { ...bot, commitId: firstPush, path: APP_TS, line: i === 149 ? 3 : 5, body: `finding ${i}` }),
    );
    pullAt(secondPush, number);

    const sweep = await resolveOutdatedThreads(octokit, pull(number), (id) => ids.includes(id), process.logger);

    expect(sweep).toEqual({ resolved: 1, kept: 149 });
    expect(graphqlCalls("query").map((r) => (r.body as { variables: { cursor: unknown } }).variables.cursor !== null)).toEqual([false, true]);
    expect(resolvedIds()).toEqual([threadOf(ids[149]).id]);
  });

  it("reads at most ten pages, and says so", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const bot = APP_BOT;
    const ids = Array.from({ length: 1001 }, (_, i) =>
      harness.standIn.startThread(REPOSITORY, number, { ...bot, commitId: firstPush, path: APP_TS, line: i === 1000 ? 3 : 5, body: `finding ${i}` }),
    );
    pullAt(secondPush, number);

    const sweep = await resolveOutdatedThreads(octokit, pull(number), (id) => ids.includes(id), process.logger);

    expect(sweep).toEqual({ resolved: 0, kept: 1000 });
    expect(graphqlCalls("query")).toHaveLength(10);
    expect(process.logLines.join("\n")).toContain("review threads past the page limit left unread");
  });

  it.each([
    ["a flag of the wrong type", { isOutdated: "yes" }, undefined, "reviewThreads.nodes.0.isOutdated"],
    ["a thread without an id", { id: undefined }, undefined, "reviewThreads.nodes.0.id"],
    ["a next page without a cursor", {}, { hasNextPage: true, endCursor: null }, "pageInfo: hasNextPage without an endCursor"],
  ])("refuses an answer with %s, naming the field", async (_name, node, pageInfo, named) => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const ours = await postOurReview(octokit, number, [3]);
    pullAt(secondPush, number);
    const thread = {
      id: threadOf(ours.get(3)).id,
      isResolved: false,
      isOutdated: true,
      comments: { totalCount: 1, nodes: [{ databaseId: ours.get(3) }] },
      ...node,
    };
    const reviewThreads = { pageInfo: pageInfo ?? { hasNextPage: false, endCursor: "x" }, nodes: [thread] };
    harness.standIn.fail("POST", /^\/graphql$/, 1, { status: 200, body: { data: { repository: { pullRequest: { reviewThreads } } } } });

    const error: unknown = await resolveOutdatedThreads(octokit, pull(number), () => true, process.logger).catch((e: unknown) => e);

    expect(isAppError(error) && error.code).toBe("GITHUB_API_FAILED");
    expect((error as Error).message).toContain(named);
    expect(graphqlCalls("mutation")).toEqual([]);
    expect(threadOf(ours.get(3)).isResolved).toBe(false);
  });

  it.each([
    ["no data at all", { data: null }, "(root)"],
    ["a repository missing", { data: {} }, "repository"],
  ])("refuses an answer with %s", async (_name, body, named) => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    harness.standIn.fail("POST", /^\/graphql$/, 1, { status: 200, body });
    const error: unknown = await resolveOutdatedThreads(octokit, pull(pullAt(firstPush)), () => true, process.logger).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe("GITHUB_API_FAILED");
    expect((error as Error).message).toMatch(new RegExp(`wrong shape at ${named.replace(/[()]/g, "\\$&")}:`));
  });

  it("fails with GitHub's message when the answer carries errors", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);

    const missing: unknown = await resolveOutdatedThreads(octokit, pull(9999), () => true, process.logger).catch((e: unknown) => e);
    expect(isAppError(missing) && missing.code).toBe("GITHUB_API_FAILED");
    expect((missing as Error).message).toContain("Could not resolve to a PullRequest with the number of 9999.");

    const number = pullAt(firstPush);
    // Not GitHub's transient "Something went wrong while executing your query": plugin-retry retries that one as a 500.
    harness.standIn.fail("POST", /^\/graphql$/, 1, {
      status: 200,
      body: { data: null, errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }] },
    });
    const failed: unknown = await resolveOutdatedThreads(octokit, pull(number), () => true, process.logger).catch((e: unknown) => e);
    expect(isAppError(failed) && failed.code).toBe("GITHUB_API_FAILED");
    expect((failed as Error).message).toContain("Resource not accessible by integration");

    // Control: the same PR answers without errors once the fault is used up.
    expect(await resolveOutdatedThreads(octokit, pull(number), () => true, process.logger)).toEqual({ resolved: 0, kept: 0 });
  });
});

describe("the stand-in's review threads", () => {
  it("refuse the mutation to a token without pull_requests write, and take it from the installation's", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const ours = await postOurReview(octokit, number, [3]);
    pullAt(secondPush, number);
    const { token } = await mintRepositoryToken(process.app, INSTALLATION_ID, REPOSITORY_ID);

    const answer = await fetch(`${harness.standIn.url}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: "mutation ($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { id isResolved } } }",
        variables: { id: threadOf(ours.get(3)).id },
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ data: { resolveReviewThread: null }, errors: [{ type: "FORBIDDEN" }] });
    expect(threadOf(ours.get(3)).isResolved).toBe(false);

    expect(await resolveOutdatedThreads(octokit, pull(number), (id) => id === ours.get(3), process.logger)).toEqual({ resolved: 1, kept: 0 });
    expect(threadOf(ours.get(3)).isResolved).toBe(true);
  });

  it("take the App's replies into the thread, and refuse a reply to another PR's comment", async () => {
    const process = harness.process();
    const octokit = await process.app.getInstallationOctokit(INSTALLATION_ID);
    const number = pullAt(firstPush);
    const other = pullAt(firstPush);
    const ours = await postOurReview(octokit, number, [3]);
    const reply = (pullNumber: number) =>
      octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
        owner: OWNER,
        repo: REPO,
        pull_number: pullNumber,
        comment_id: ours.get(3) ?? 0,
        body: "Fixed in the next push?",
      });

    await expect(reply(other)).rejects.toMatchObject({ status: 404 });
    const { data } = await reply(number);
    expect(data).toMatchObject({ in_reply_to_id: ours.get(3), user: { login: "reviewbot[bot]", type: "Bot" }, path: APP_TS, original_line: 3 });
    expect(threadOf(ours.get(3)).commentIds).toEqual([ours.get(3), data.id]);

    pullAt(secondPush, number);
    expect(await resolveOutdatedThreads(octokit, pull(number), (id) => id === ours.get(3), process.logger)).toEqual({ resolved: 0, kept: 1 });
  });
});
