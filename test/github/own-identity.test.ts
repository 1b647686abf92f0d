import { randomUUID } from "node:crypto";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { createGitHubSink } from "@reviewbot/github/github-sink";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_PATH } from "@reviewbot/api/routes/create-api-app";
import { SECRET, startApi, type ApiHarness } from "../api/api-harness.js";
import {
  APP_ID,
  INSTALLATION_ID,
  REPOSITORY,
  REPOSITORY_ID,
  startGitHubHarness,
  type AppProcess,
  type GitHubHarness,
} from "../support/github-stand-in-harness.js";
import { APP_BOT, type StandInUser } from "../support/github-stand-in-threads.js";
import { sendWebhook } from "../support/webhook-client.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

/** Another App installed on the same repository (a CI bot, say): type Bot, like ours, with an id of its own. */
const OTHER_BOT: StandInUser = { login: "quote-bot[bot]", id: 149_000_555, type: "Bot" };
const MAINTAINER: StandInUser = { login: "maintainer", id: 5001, type: "User" };
const HUNKS = { "src/app.ts": [[10, 20]] as [number, number][] };

let harness: GitHubHarness;
let process: AppProcess;
let api: ApiHarness;
let counter = 0;

beforeAll(async () => {
  harness = await startGitHubHarness();
  process = harness.process();
  // The real api app on the same Redis: its webhook intake decides whether a reply is in a thread of ours.
  api = await startApi({
    redisUrl: harness.localRedis.url,
    workers: 1,
    model: {
      protocol: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "sk-never-called",
      models: ["stand-in-coder"],
      maxTokens: 1024,
      budgets: { jobTokens: 10_000, installationDailyTokens: 100_000, jobMicrodollars: null, installationDailyMicrodollars: null, installationCalls: 4 },
    },
  });
});
afterAll(async () => {
  await (api as ApiHarness | undefined)?.close();
  await harness.stop();
});

/** A PR on the stand-in at `headSha` (a fresh one unless given) and the review job of it. */
function pullAt(pullNumber: number, headSha = (++counter).toString(16).padStart(40, "e")): ReviewJob {
  harness.standIn.setPullRequest(REPOSITORY, { number: pullNumber, headSha, baseSha: "b".repeat(40), baseRef: "main", hunks: HUNKS });
  return {
    installationId: INSTALLATION_ID,
    repositoryId: REPOSITORY_ID,
    repository: REPOSITORY,
    pullNumber,
    headSha,
    baseSha: "b".repeat(40),
    baseRef: "main",
    defaultBranch: "main",
    repositoryPrivate: true,
    pullUpdatedAt: "2024-05-06T07:08:09Z",
    headFrom: "event",
    deliveryId: `delivery-${randomUUID()}`,
    trigger: "pull_request",
    reply: null,
  };
}

const report: PublishedReport = {
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [{ name: "eslint", image: "reviewbot/eslint", outcome: "findings", durationMs: 900, findings: 1, problems: [] }],
  findings: [
    {
      path: "src/app.ts",
      line: 12,
      endLine: null,
      column: null,
      severity: "error",
      message: "Off by one.",
      rule: "r",
      helper: "eslint",
      anchor: "0".repeat(16),
    },
  ],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: { "src/app.ts": [{ start: 10, end: 20 }] },
  durationMs: 1000,
  ai: aiReportOff(),
};

const sink = () =>
  createGitHubSink({
    app: process.app,
    appId: APP_ID,
    redis: process.redis,
    keys: DEFAULT_KEYSPACE,
    logger: process.logger,
    scrubber: process.scrubber,
    reviewComments: true,
  });
const publish = (review: ReviewJob) => sink().completed({ kind: "completed", reviewJobId: `job-${randomUUID()}`, review, report }, null);
const reviewsOn = (pullNumber: number) => harness.standIn.state.reviews.get(`${REPOSITORY}#${String(pullNumber)}`) ?? [];
const commentsOf = (reviewId: number | undefined) => [...harness.standIn.state.reviewComments.values()].filter((c) => c.reviewId === reviewId);

/** A maintainer replies in the thread `root` opened; GitHub delivers it to the real api, which says what it did. */
async function replyIn(review: ReviewJob, root: number): Promise<string> {
  const id = harness.standIn.reply(REPOSITORY, review.pullNumber, root, { ...MAINTAINER, body: "Why?" });
  const delivered = await sendWebhook(`${api.url}${WEBHOOK_PATH}`, {
    event: "pull_request_review_comment",
    deliveryId: randomUUID(),
    secret: SECRET,
    body: {
      action: "created",
      installation: { id: INSTALLATION_ID },
      repository: { id: REPOSITORY_ID, full_name: REPOSITORY, default_branch: "main" },
      comment: { id, in_reply_to_id: root, author_association: "MEMBER", user: { login: MAINTAINER.login, type: MAINTAINER.type } },
      pull_request: {
        number: review.pullNumber,
        state: "open",
        updated_at: new Date().toISOString(),
        head: { sha: review.headSha, ref: "fork" },
        base: { sha: review.baseSha, ref: "main" },
      },
    },
  });
  expect(delivered.status).toBe(202);
  const answer = JSON.parse(delivered.body) as { status: string; reason?: string };
  return answer.reason ?? answer.status;
}

describe("our reviews and comments are known by our App's bot user, never by a marker", () => {
  it("another App's bot quoting our markers does not stop our review, enter our memory or get its threads answered", async () => {
    const review = pullAt(401);
    // The other bot quotes what it saw (the PR description, say): our head's marker and a finding's marker.
    const theirs = harness.standIn.review(REPOSITORY, review.pullNumber, OTHER_BOT, {
      event: "COMMENT",
      commit_id: review.headSha,
      body: `Quoting the description: <!-- reviewbot:${review.headSha} -->`,
      comments: [{ path: "src/app.ts", line: 12, side: "RIGHT", body: `Looks odd.\n\n<!-- reviewbot:finding:${"f".repeat(32)} -->` }],
    });

    await publish(review);

    const reviews = reviewsOn(review.pullNumber);
    expect(reviews.map((r) => r.user)).toEqual([OTHER_BOT, APP_BOT]);
    const ours = reviews[1];
    const [ourComment] = commentsOf(ours?.id);
    const [theirComment] = commentsOf(theirs);
    expect(ourComment?.user).toEqual(APP_BOT);
    expect(ourComment?.body).toContain("Off by one");
    const memory = await readReviewMemory(process.redis, DEFAULT_KEYSPACE, REPOSITORY_ID, review.pullNumber);
    expect(memory.comments).toEqual([ourComment?.id]);
    expect(memory.comments).not.toContain(theirComment?.id);
    // A maintainer's reply in their thread is not ours to answer; the control: in ours it is.
    expect(await replyIn(review, theirComment?.id ?? 0)).toBe("not_our_thread");
    expect(await replyIn(review, ourComment?.id ?? 0)).toBe("accepted");

    // The control: with Redis's record gone, our own earlier review is found on GitHub by our id, and not posted twice.
    await harness.localRedis.command("DEL", `reviewbot:review:${String(REPOSITORY_ID)}:${String(review.pullNumber)}:${review.headSha}`);
    await publish(review);
    expect(reviewsOn(review.pullNumber).map((r) => r.user)).toEqual([OTHER_BOT, APP_BOT]);
  });

  it("a decoy PR with the same head does not take the real PR's review: each PR gets its own, with its comments", async () => {
    const decoy = pullAt(402);
    const real = pullAt(403, decoy.headSha);

    await publish(decoy);
    await publish(real);

    const [realReview] = reviewsOn(real.pullNumber);
    expect(reviewsOn(decoy.pullNumber)).toHaveLength(1);
    expect(realReview?.user).toEqual(APP_BOT);
    const realComments = commentsOf(realReview?.id);
    expect(realComments.map((c) => [c.pull, c.line])).toEqual([[`${REPOSITORY}#403`, 12]]);
    expect((await readReviewMemory(process.redis, DEFAULT_KEYSPACE, REPOSITORY_ID, real.pullNumber)).comments).toEqual(realComments.map((c) => c.id));

    // The control: the same PR and head is posted once.
    await publish(real);
    expect(reviewsOn(real.pullNumber)).toHaveLength(1);
  });

  it("reads who we are once per api process: GET /app with the App's JWT, then its bot user", async () => {
    const before = harness.standIn.requests.length;
    const publisher = sink();
    const first = pullAt(404);
    const second = pullAt(405);
    await publisher.completed({ kind: "completed", reviewJobId: `job-${randomUUID()}`, review: first, report }, null);
    await publisher.completed({ kind: "completed", reviewJobId: `job-${randomUUID()}`, review: second, report }, null);
    const lookUps = harness.standIn.requests.slice(before).filter((r) => r.path === "/app" || r.path.startsWith("/users/"));
    expect(lookUps.map((r) => [r.method, r.path, r.status, r.authorization?.split(" ")[0]])).toEqual([
      ["GET", "/app", 200, "bearer"],
      ["GET", "/users/reviewbot%5Bbot%5D", 200, "token"],
    ]);
  });
});
