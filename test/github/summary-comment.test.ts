import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { CompletedTask } from "@reviewbot/contracts/github-task";
import type { PublishedReport } from "@reviewbot/contracts/published-report";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { createGitHubSink, type GitHubSinkDeps } from "@reviewbot/github/github-sink";
import { SUMMARY_MARKER } from "@reviewbot/github/upsert-summary-comment";
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
import { APP_BOT } from "../support/github-stand-in-threads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

let harness: GitHubHarness;
let pullCounter = 400;

beforeAll(async () => {
  harness = await startGitHubHarness();
});
afterAll(async () => {
  await harness.stop();
});

const sha = (n: number): string => n.toString(16).padStart(40, "d");

/** A PR fixture on the stand-in and its review job at `headSha`. */
function pullAt(pullNumber: number, headSha: string): ReviewJob {
  harness.standIn.setPullRequest(REPOSITORY, { number: pullNumber, headSha, baseSha: "b".repeat(40), baseRef: "main" });
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
    deliveryId: `delivery-${headSha.slice(-6)}`,
    trigger: "pull_request",
    reply: null,
  };
}

const report = (message: string): PublishedReport => ({
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [{ name: "lint", image: "reviewbot/lint", outcome: "findings", durationMs: 5, findings: 1, problems: [] }],
  findings: [{ path: "src/a.ts", line: 2, endLine: null, column: null, severity: "warning", message, rule: null, helper: "lint", anchor: null }],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 5,
  ai: aiReportOff(),
});
const completed = (review: ReviewJob, message: string): CompletedTask => ({
  kind: "completed",
  reviewJobId: `job-${review.headSha.slice(-6)}`,
  review,
  report: report(message),
});

function sink(process: AppProcess, overrides: Partial<GitHubSinkDeps> = {}) {
  return createGitHubSink({
    app: process.app,
    appId: APP_ID,
    redis: process.redis,
    keys: DEFAULT_KEYSPACE,
    logger: process.logger,
    scrubber: process.scrubber,
    reviewComments: false,
    ...overrides,
  });
}

const commentsOn = (pullNumber: number) =>
  [...harness.standIn.state.issueComments.values()].filter((comment) => comment.pull === `${REPOSITORY}#${pullNumber}`);
const oursOn = (pullNumber: number) => commentsOn(pullNumber).filter((comment) => comment.user.id === APP_BOT.id);
const forget = (pullNumber: number) => harness.localRedis.command("DEL", `reviewbot:summary:comment:${REPOSITORY_ID}:${pullNumber}`);

describe("the PR's summary comment", () => {
  it("is created once by two api processes at once and a retry, then edited in place on every push", async () => {
    const pullNumber = ++pullCounter;
    const first = pullAt(pullNumber, sha(1));
    const [a, b] = [sink(harness.process()), sink(harness.process())];
    await Promise.all([a.completed(completed(first, "first finding"), null), b.completed(completed(first, "first finding"), null)]);
    await a.completed(completed(first, "first finding"), null);
    expect(oursOn(pullNumber)).toHaveLength(1);
    for (const push of [2, 3, 4]) {
      const review = pullAt(pullNumber, sha(push));
      await (push % 2 === 0 ? a : b).completed(completed(review, `finding at push ${push}`), null);
    }
    const [summary] = oursOn(pullNumber);
    expect(oursOn(pullNumber)).toHaveLength(1);
    expect(summary?.body.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(summary?.body).toContain(`Reviewed head \`${sha(4).slice(0, 12)}\``);
    expect(summary?.body).toContain(`From \`${sha(3).slice(0, 12)}\` to \`${sha(4).slice(0, 12)}\`: 1 new finding, 1 finding no longer found.`);
    expect(harness.standIn.calls("POST", new RegExp(`/issues/${pullNumber}/comments$`))).toHaveLength(1);
  });

  it("is found by our bot user's id when Redis forgot it, never by the marker another account copied", async () => {
    const pullNumber = ++pullCounter;
    const review = pullAt(pullNumber, sha(10));
    const impostors = [
      harness.standIn.issueComment(REPOSITORY, pullNumber, { login: "mallory", id: 31_337, type: "User" }, `${SUMMARY_MARKER}\nI am the summary`),
      harness.standIn.issueComment(REPOSITORY, pullNumber, { login: "other-app[bot]", id: 41_000, type: "Bot" }, `${SUMMARY_MARKER}\nme too`),
    ];
    const publisher = sink(harness.process());
    await publisher.completed(completed(review, "a finding"), null);
    expect(oursOn(pullNumber)).toHaveLength(1);
    await forget(pullNumber);
    await publisher.completed(completed(pullAt(pullNumber, sha(11)), "another finding"), null);
    expect(oursOn(pullNumber)).toHaveLength(1);
    expect(oursOn(pullNumber)[0]?.body).toContain(sha(11).slice(0, 12));
    // The impostors' comments were never edited.
    expect(impostors.map((id) => harness.standIn.state.issueComments.get(id)?.body)).toEqual([
      `${SUMMARY_MARKER}\nI am the summary`,
      `${SUMMARY_MARKER}\nme too`,
    ]);
    expect(harness.standIn.calls("PATCH", /\/issues\/comments\/\d+$/).filter((call) => impostors.some((id) => call.path.endsWith(`/${id}`)))).toEqual([]);
  });

  it("is posted again when someone deleted it", async () => {
    const pullNumber = ++pullCounter;
    const publisher = sink(harness.process());
    await publisher.completed(completed(pullAt(pullNumber, sha(20)), "x"), null);
    const [gone] = oursOn(pullNumber);
    harness.standIn.state.issueComments.delete(gone?.id ?? 0);
    await publisher.completed(completed(pullAt(pullNumber, sha(21)), "y"), null);
    expect(oursOn(pullNumber)).toHaveLength(1);
    expect(oursOn(pullNumber)[0]?.body).toContain(sha(21).slice(0, 12));
  });

  it("is rendered again by a `summary` task from the stored state, with the caller's pause, dismissals and commands", async () => {
    const pullNumber = ++pullCounter;
    const process = harness.process();
    const task = {
      kind: "summary",
      installationId: INSTALLATION_ID,
      repositoryId: REPOSITORY_ID,
      repository: REPOSITORY,
      pullNumber,
      deliveryId: "d-1",
    } as const;
    pullAt(pullNumber, sha(30));
    // Nothing reviewed yet: nothing to render, nothing posted.
    expect(await sink(process).summary(task)).toBe("skipped");
    expect(commentsOn(pullNumber)).toEqual([]);
    await sink(process).completed(completed(pullAt(pullNumber, sha(30)), "a finding"), null);
    const extras = () =>
      Promise.resolve({ paused: true, dismissed: 3, commands: [{ usage: "@reviewbot resume", description: "start automatic reviews again" }] });
    expect(await sink(process, { summaryExtras: extras }).summary(task)).toBe("done");
    const [summary] = oursOn(pullNumber);
    expect(oursOn(pullNumber)).toHaveLength(1);
    expect(summary?.body).toContain("**Paused:**");
    expect(summary?.body).toContain("3 findings dismissed on this PR are not raised again.");
    expect(summary?.body).toContain("`@reviewbot resume`");
    expect(summary?.body).toContain(sha(30).slice(0, 12));
  });
});
