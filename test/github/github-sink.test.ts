import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { createGitHubSink, type GitHubSinkDeps } from "@reviewbot/github/github-sink";
import type { CompletedTask } from "@reviewbot/contracts/github-task";
import { type PublishedFinding, type PublishedReport } from "@reviewbot/contracts/published-report";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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

let harness: GitHubHarness;
let shaCounter = 0;

beforeAll(async () => {
  harness = await startGitHubHarness();
});
afterAll(async () => {
  await harness.stop();
});
beforeEach(() => {
  harness.standIn.requests.length = 0;
  harness.standIn.clearFaults();
});

/** A fresh head (and PR fixture) per test, so tests never see each other's check runs. */
function newReview(hunks: Record<string, (readonly [number, number])[]> = {}): ReviewJob {
  shaCounter++;
  const headSha = shaCounter.toString(16).padStart(40, "a");
  const pullNumber = 100 + shaCounter;
  harness.standIn.setPullRequest(REPOSITORY, { number: pullNumber, headSha, baseSha: "b".repeat(40), baseRef: "main", hunks });
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
    deliveryId: `delivery-${shaCounter}`,
    trigger: "pull_request",
    reply: null,
  };
}

const finding = (line: number | null, extra: Partial<PublishedFinding> = {}): PublishedFinding => ({
  path: "src/app.ts",
  line,
  endLine: null,
  column: null,
  severity: "error",
  message: `problem on ${String(line)}`,
  rule: "no-problem",
  helper: "eslint",
  anchor: line === null ? null : String(line).padStart(16, "0"),
  ...extra,
});

function report(findings: PublishedFinding[], hunks: Record<string, { start: number; end: number }[]> = {}): PublishedReport {
  return {
    engine: "bwrap",
    sandboxed: true,
    overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
    configErrors: [],
    helpers: [{ name: "eslint", image: "reviewbot/eslint", outcome: "findings", durationMs: 900, findings: findings.length, problems: [] }],
    findings,
    filtered: { mode: "added", dropped: 3 },
    errors: [],
    hunks,
    durationMs: 1000,
    ai: aiReportOff(),
  };
}

const completedTask = (review: ReviewJob, published: PublishedReport, jobId = `job-${review.headSha.slice(-4)}`): CompletedTask => ({
  kind: "completed",
  reviewJobId: jobId,
  review,
  report: published,
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

const runsFor = (headSha: string) => [...harness.standIn.state.checkRuns.values()].filter((run) => run.head_sha === headSha);
const patches = () => harness.standIn.calls("PATCH", /\/check-runs\/\d+$/).filter((r) => r.status === 200);

describe("check run publication", () => {
  it("publishes 120 findings as one check run with three annotation batches", async () => {
    const review = newReview();
    const publisher = sink(harness.process());
    await publisher.started({ kind: "started", reviewJobId: "job-1", review });
    expect(runsFor(review.headSha).map((r) => r.status)).toEqual(["in_progress"]);

    const findings = Array.from({ length: 120 }, (_, i) => finding(i + 1));
    await publisher.completed(completedTask(review, report(findings), "job-1"), null);

    const [run] = runsFor(review.headSha);
    expect(runsFor(review.headSha)).toHaveLength(1);
    expect(run?.status).toBe("completed");
    expect(run?.conclusion).toBe("failure");
    expect(run?.annotations).toHaveLength(120);
    expect(new Set(run?.annotations.map((a) => a.start_line)).size).toBe(120);
    expect(run?.output.summary).toContain("120 errors, 0 warnings");
    const sizes = patches().map((r) => (r.body as { output: { annotations: unknown[] } }).output.annotations.length);
    expect(sizes).toEqual([50, 50, 20]);
    // Only the last PATCH completes the run.
    expect(patches().map((r) => (r.body as { status?: string }).status)).toEqual([undefined, undefined, "completed"]);
  });

  it("does not duplicate when completed is retried, nor after started comes late", async () => {
    const review = newReview();
    const publisher = sink(harness.process());
    const task = completedTask(review, report(Array.from({ length: 70 }, (_, i) => finding(i + 1))));
    await publisher.completed(task, null);
    await publisher.completed(task, null);
    await sink(harness.process()).completed(task, null);
    await publisher.started({ kind: "started", reviewJobId: task.reviewJobId, review });
    expect(runsFor(review.headSha)).toHaveLength(1);
    expect(runsFor(review.headSha)[0]?.annotations).toHaveLength(70);
    expect(runsFor(review.headSha)[0]?.status).toBe("completed");
    expect(patches()).toHaveLength(2);
  });

  it("resumes a publish that failed half-way from the next unpublished batch", async () => {
    const review = newReview();
    const task = completedTask(review, report(Array.from({ length: 120 }, (_, i) => finding(i + 1))));
    const publisher = sink(harness.process());
    await publisher.started({ kind: "started", reviewJobId: task.reviewJobId, review });
    const original = harness.standIn.state.checkRuns.get(runsFor(review.headSha)[0]?.id ?? 0);
    expect(original).toBeDefined();
    // After the first batch, the next PATCH fails more often than plugin-retry retries (3).
    const firstAttempt = publisher.completed(task, null);
    await waitFor(() => (original?.annotations.length ?? 0) === 50);
    harness.standIn.fail("PATCH", /\/check-runs\/\d+$/, 4, "502");
    await expect(firstAttempt).rejects.toBeDefined();
    const patchesSeen = patches().length;
    expect(original?.annotations).toHaveLength(50);

    // A second api process (its Redis state lost) picks the task up.
    await harness.localRedis.command("DEL", `reviewbot:check-run:${REPOSITORY_ID}:${review.headSha}`);
    await sink(harness.process()).completed(task, null);
    expect(runsFor(review.headSha)).toHaveLength(1);
    expect(original?.annotations).toHaveLength(120);
    expect(new Set(original?.annotations.map((a) => a.start_line)).size).toBe(120);
    expect(original?.status).toBe("completed");
    expect(patches().length - patchesSeen).toBe(2);
  }, 30_000);

  it("retries a 502 and a secondary rate limit and publishes once", async () => {
    const review = newReview();
    const process = harness.process();
    harness.standIn.fail("POST", /\/check-runs$/, 1, "502");
    harness.standIn.fail("PATCH", /\/check-runs\/\d+$/, 1, "secondary-rate-limit");
    const started = Date.now();
    await sink(process).completed(completedTask(review, report([finding(3)])), null);
    expect(runsFor(review.headSha)).toHaveLength(1);
    expect(runsFor(review.headSha)[0]?.annotations).toHaveLength(1);
    expect(harness.standIn.calls("POST", /\/check-runs$/).map((r) => r.status)).toEqual([502, 201]);
    expect(harness.standIn.calls("PATCH").map((r) => r.status)).toEqual([403, 200]);
    expect(process.rateLimitWaits).toEqual([{ seconds: 1, kind: "secondary" }]);
    // Retry-After: 1 was honoured.
    const patchTimes = harness.standIn.calls("PATCH").map((r) => r.at);
    expect((patchTimes[1] ?? 0) - (patchTimes[0] ?? 0)).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(
      process.requests
        .filter((r) => r.status >= 400)
        .map((r) => r.status)
        .sort(),
    ).toEqual([403, 502]);
  }, 30_000);

  it("retries a 429 secondary rate limit", async () => {
    const review = newReview();
    const process = harness.process();
    harness.standIn.fail("PATCH", /\/check-runs\/\d+$/, 1, "429");
    await sink(process).completed(completedTask(review, report([])), null);
    expect(harness.standIn.calls("PATCH").map((r) => r.status)).toEqual([429, 200]);
    expect(runsFor(review.headSha)[0]?.conclusion).toBe("success");
    expect(process.rateLimitWaits).toEqual([{ seconds: 1, kind: "secondary" }]);
  }, 30_000);

  it("gives up on a rate limit after a bounded number of retries", async () => {
    const review = newReview();
    const process = harness.process({ rateLimitRetries: 1 });
    harness.standIn.fail("POST", /\/check-runs$/, 5, "secondary-rate-limit");
    await expect(sink(process).started({ kind: "started", reviewJobId: "j", review })).rejects.toMatchObject({ status: 403 });
    expect(harness.standIn.calls("POST", /\/check-runs$/)).toHaveLength(2);
  }, 30_000);

  it("creates one check run when two processes start the same head at once", async () => {
    const review = newReview();
    const task = { kind: "started" as const, reviewJobId: "job-x", review };
    await Promise.all([sink(harness.process()).started(task), sink(harness.process()).started(task), sink(harness.process()).started(task)]);
    expect(runsFor(review.headSha)).toHaveLength(1);
  });

  it("finds the existing check run on GitHub when Redis has forgotten it", async () => {
    const review = newReview();
    await sink(harness.process()).started({ kind: "started", reviewJobId: "job-y", review });
    await harness.localRedis.command("DEL", `reviewbot:check-run:${REPOSITORY_ID}:${review.headSha}`);
    await sink(harness.process()).completed(completedTask(review, report([finding(1)]), "job-y"), null);
    expect(runsFor(review.headSha)).toHaveLength(1);
    expect(runsFor(review.headSha)[0]?.status).toBe("completed");
    expect(harness.standIn.calls("GET", /\/commits\/[0-9a-f]+\/check-runs$/)[0]?.query.check_name).toBe("reviewbot");
  });

  it("cancels a superseded head's check run and posts no review", async () => {
    const review = newReview({ "src/app.ts": [[1, 10]] });
    const newer = "f".repeat(40);
    await sink(harness.process(), { reviewComments: true }).completed(
      completedTask(review, report([finding(2)], { "src/app.ts": [{ start: 1, end: 10 }] })),
      newer,
    );
    const [run] = runsFor(review.headSha);
    expect(run?.conclusion).toBe("cancelled");
    expect(run?.output.summary).toContain(`superseded by \`${newer}\``);
    expect(run?.annotations).toHaveLength(0);
    expect(harness.standIn.calls("POST", /\/reviews$/)).toHaveLength(0);
  });

  it("completes a failed review as failure naming the reason", async () => {
    const review = newReview();
    await sink(harness.process()).failed({
      kind: "failed",
      reviewJobId: "job-f",
      review,
      code: "REPO_CONFIG_INVALID",
      reason: "helpers[0].image is not allowed",
    });
    const [run] = runsFor(review.headSha);
    expect(run?.conclusion).toBe("failure");
    expect(run?.output.summary).toContain("(`REPO_CONFIG_INVALID`)");
    expect(run?.output.summary).toContain("helpers\\[0\\]\\.image is not allowed");
  });

  it("paces content-creating requests of one installation across processes", async () => {
    const paceMs = 150;
    const [first, second] = [sink(harness.process({ paceMs })), sink(harness.process({ paceMs }))];
    const reviews = [newReview(), newReview(), newReview()];
    await Promise.all(reviews.map((review, i) => (i % 2 === 0 ? first : second).completed(completedTask(review, report([finding(1)])), null)));
    const writes = harness.standIn.requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/app/")).map((r) => r.at);
    // Per review: the check run created and completed, and the PR's summary comment created.
    expect(writes).toHaveLength(9);
    const gaps = writes.slice(1).map((at, i) => at - (writes[i] ?? 0));
    // Unpaced, these writes arrive a few milliseconds apart; the margin absorbs scheduling jitter.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(paceMs - 40);
  });
});

describe("review comments and sanitisation", () => {
  it("comments only on lines within the diff's hunks, once per head", async () => {
    const hunks = { "src/app.ts": [{ start: 10, end: 20 }] };
    const review = newReview({ "src/app.ts": [[10, 20]] });
    const publisher = sink(harness.process(), { reviewComments: true });
    const task = completedTask(review, report([finding(12), { ...finding(15), endLine: 18 }, finding(30), finding(null)], hunks));
    await publisher.completed(task, null);
    await publisher.completed(task, null);
    await harness.localRedis.command("DEL", `reviewbot:review:${REPOSITORY_ID}:${review.pullNumber}:${review.headSha}`);
    await sink(harness.process(), { reviewComments: true }).completed(task, null);

    const posted = harness.standIn.state.reviews.get(`${REPOSITORY}#${review.pullNumber}`) ?? [];
    expect(posted).toHaveLength(1);
    expect(posted[0]?.event).toBe("COMMENT");
    expect(posted[0]?.commit_id).toBe(review.headSha);
    expect(posted[0]?.body).toContain(`<!-- reviewbot:${review.headSha} -->`);
    expect(posted[0]?.comments.map((c) => [c.start_line, c.line])).toEqual([
      [undefined, 12],
      [15, 18],
    ]);
    // All four findings are still annotations.
    expect(runsFor(review.headSha)[0]?.annotations).toHaveLength(4);
  });

  it("neutralises a hostile finding in everything GitHub receives", async () => {
    const review = newReview({ "src/app.ts": [[1, 5]] });
    const process = harness.process();
    const leaked = "ghs_thisisaleakedtoken0123456789";
    process.scrubber.register(leaked);
    const hostile = `@octo-org/admins look ![pixel](https://evil.example/p.png) <img src="https://evil.example/i.png"> [phish](https://evil.example) \u202Etxt.exe ${leaked} closes #1, GH-2 and octo/widgets#3 at deadbee (octo/widgets@cafe123) www.evil.example`;
    const published = report([finding(2, { message: hostile, rule: "@security-team" })], { "src/app.ts": [{ start: 1, end: 5 }] });
    published.helpers[0] = {
      name: "lint @everyone",
      image: "![x](https://evil.example/h.png)",
      outcome: "failed",
      durationMs: 1,
      findings: 1,
      problems: [hostile],
    };
    await sink(process, { reviewComments: true }).completed(completedTask(review, published), null);

    const bodies = harness.standIn.requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/app/")).map((r) => r.body);
    const everything = JSON.stringify(bodies);
    expect(everything).toContain("evil.example"); // the text is there, made inert
    expect(everything).not.toMatch(/@(octo-org|security-team|everyone)/);
    expect(everything).not.toContain("\u202E");
    expect(everything).not.toContain(leaked);
    expect(everything).toContain("[REDACTED]");
    // Markdown-rendered fields (summary, text, review bodies) carry no live image, HTML or link.
    const run = runsFor(review.headSha)[0];
    const posted = harness.standIn.state.reviews.get(`${REPOSITORY}#${review.pullNumber}`)?.[0];
    const markdown = [run?.output.summary, run?.output.text, posted?.body, ...(posted?.comments.map((c) => String(c.body)) ?? [])].join("\n");
    // A URL is shown as code: its text is there, copyable, and GitHub links nothing in code.
    expect(markdown).toContain("`https://evil.example/p.png`");
    expect(markdown).not.toContain("![");
    expect(markdown).not.toMatch(/<img|<a /i);
    expect(markdown).not.toContain("](");
    // Nothing GitHub would autolink is left outside code (our hidden markers aside).
    const outsideCode = markdown.replace(/<!-- [^>]* -->/g, "").replace(/`[^`\n]*`/g, "");
    expect(outsideCode).not.toMatch(/#\d|GH-\d|\b[0-9a-f]{7,40}\b|www\.|https?:\/\//i);
    expect(markdown).toContain("`octo/widgets@cafe123`");
    // Annotations are plain text on GitHub (not rendered): mentions and bidi controls are still neutralised.
    expect(run?.annotations[0]?.message.startsWith("@\u200Docto-org")).toBe(true);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
