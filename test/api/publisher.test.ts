import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITHUB_TASK_OPTIONS } from "@reviewbot/queue/github-task-queue";
import { createLocalSink } from "@reviewbot/api/publisher/local-sink";
import { startPublisher } from "@reviewbot/api/publisher/start-publisher";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { type PublishedReport } from "@reviewbot/contracts/published-report";
import { recordLatestHead } from "@reviewbot/queue/pull-request-state";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { SEAL, startApi, type ApiHarness } from "./api-harness.js";
import { BASE_SHA, headSha } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

let api: ApiHarness;
let dir: string;
let blocking: Redis;
let publisher: Worker;

const report: PublishedReport = {
  engine: "bwrap",
  sandboxed: true,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: "c".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [{ name: "eslint", image: "reviewbot/node", outcome: "findings", durationMs: 10, findings: 1, problems: [] }],
  findings: [
    {
      path: "src/a.ts",
      line: 3,
      endLine: 3,
      column: 1,
      severity: "warning",
      message: "unused variable",
      rule: "no-unused-vars",
      helper: "eslint",
      anchor: "0123456789abcdef",
    },
  ],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: { "src/a.ts": [{ start: 1, end: 10 }] },
  durationMs: 20,
  ai: aiReportOff(),
};

/** A review of `head`; a higher-numbered head of a PR is a later one (its `updated_at` is later). */
function review(pullNumber: number, head: string): ReviewJob {
  const pullUpdatedAt = new Date(Date.UTC(2024, 4, 1) + Number.parseInt(head.slice(-8), 16) * 1000).toISOString();
  return {
    installationId: 7,
    repositoryId: 100,
    repository: "octo/hello",
    pullNumber,
    headSha: head,
    baseSha: BASE_SHA,
    baseRef: "main",
    defaultBranch: "main",
    repositoryPrivate: true,
    pullUpdatedAt,
    headFrom: "event",
    deliveryId: `d-${pullNumber}-${head.slice(-4)}`,
    trigger: "pull_request",
    reply: null,
  };
}

async function settle(jobId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const state = await api.github.getJobState(jobId);
    if (state === "completed" || state === "failed") return state;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${jobId} did not settle`);
}

/** Adds a publisher task as the api does: sealed under its id. */
async function addTask(id: string, data: Record<string, unknown> & { kind: string }): Promise<void> {
  await api.github.add(data.kind, SEAL.seal(id, data), { ...GITHUB_TASK_OPTIONS, jobId: id });
}

beforeAll(async () => {
  api = await startApi();
  dir = await mkdtemp(join(tmpdir(), "reviewbot-sink-"));
  blocking = createRedisConnection(api.redisUrl, { name: "test-publisher", blocking: true });
  const scrubber = new SecretScrubber();
  publisher = startPublisher({
    sink: createLocalSink(dir),
    resolve: null,
    commands: null,
    reviews: api.reviews,
    tasks: api.github,
    redis: api.redis,
    keys: DEFAULT_KEYSPACE,
    seal: SEAL,
    blockingConnection: blocking,
    metrics: api.metrics,
    logger: createLogger({ level: "silent", scrubber }),
  });
});
afterAll(async () => {
  await publisher.close();
  blocking.disconnect();
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

describe("publisher with the local sink", () => {
  it("writes the check run a started and then completed review would have", async () => {
    const job = review(1, headSha(11));
    await recordLatestHead(api.redis, DEFAULT_KEYSPACE, job, "review.100.1.x");
    const file = join(dir, "octo", "hello", "1", `${job.headSha}.json`);
    await addTask("started.1", { kind: "started", reviewJobId: "review.100.1.x", review: job });
    expect(await settle("started.1")).toBe("completed");
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ name: "reviewbot", status: "in_progress", headSha: job.headSha });
    await addTask("completed.1", { kind: "completed", reviewJobId: "review.100.1.x", review: job, report });
    expect(await settle("completed.1")).toBe("completed");
    const written = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    expect(written).toMatchObject({ status: "completed", conclusion: "neutral", annotations: [expect.objectContaining({ path: "src/a.ts" })] });

    // A late duplicate `started` does not reopen the finished run.
    await addTask("started.1b", { kind: "started", reviewJobId: "review.100.1.x", review: job });
    await settle("started.1b");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(written);
  });

  it("publishes a result for an outdated head as superseded", async () => {
    const old = review(2, headSha(21));
    await recordLatestHead(api.redis, DEFAULT_KEYSPACE, old, "review.100.2.a");
    await recordLatestHead(api.redis, DEFAULT_KEYSPACE, review(2, headSha(22)), "review.100.2.b");
    await addTask("completed.2", { kind: "completed", reviewJobId: "review.100.2.a", review: old, report });
    expect(await settle("completed.2")).toBe("completed");
    const written = JSON.parse(await readFile(join(dir, "octo", "hello", "2", `${old.headSha}.json`), "utf8")) as Record<string, unknown>;
    expect(written).toMatchObject({ conclusion: "cancelled", annotations: [] });
    expect(String(written.summary)).toContain(headSha(22));
  });

  it("fails an invalid task at once with its reason, without retries", async () => {
    await addTask("bad.1", { kind: "completed", reviewJobId: "x", review: { ...review(3, headSha(31)), headSha: "nope" }, report });
    expect(await settle("bad.1")).toBe("failed");
    const failed = await api.github.getJob("bad.1");
    expect(failed?.failedReason).toMatch(/^JOB_INVALID: github task review\.headSha/);
    expect(failed?.attemptsMade).toBe(1);
    const metrics = await api.metrics.registry.getSingleMetricAsString("reviewbot_publisher_tasks_total");
    expect(metrics).toContain('kind="completed",outcome="failed"} 1');
    expect(metrics).toContain('kind="started",outcome="done"} 2');
  });

  it("fails a task the api did not seal (a worker's forgery) at once, and publishes nothing", async () => {
    const job = review(4, headSha(41));
    const forged = { kind: "completed", reviewJobId: "review.100.4.x", review: job, report };
    await api.github.add("completed", forged, { ...GITHUB_TASK_OPTIONS, jobId: "completed.forged" });
    // A real seal, moved to another task id, does not pass either.
    await api.github.add("completed", SEAL.seal("completed.elsewhere", forged), { ...GITHUB_TASK_OPTIONS, jobId: "completed.moved" });
    for (const id of ["completed.forged", "completed.moved"]) {
      expect(await settle(id)).toBe("failed");
      expect((await api.github.getJob(id))?.failedReason).toMatch(/^JOB_INVALID: queue entry completed\.\w+ does not carry the api's seal/);
    }
    await expect(readFile(join(dir, "octo", "hello", "4", `${job.headSha}.json`), "utf8")).rejects.toThrow(/ENOENT/);
    // Negative control: the same task, sealed as the api seals it, is published.
    await addTask("completed.sealed", forged);
    expect(await settle("completed.sealed")).toBe("completed");
    expect(JSON.parse(await readFile(join(dir, "octo", "hello", "4", `${job.headSha}.json`), "utf8"))).toMatchObject({ status: "completed" });
  });
});
