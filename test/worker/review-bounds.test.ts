import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InstallationSlots } from "@reviewbot/api/broker/installation-slots";
import { startTokenSweeper } from "@reviewbot/api/broker/token-sweeper";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import type { GitHubTask } from "@reviewbot/contracts/github-task";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { eventually } from "../sandbox/cancel-fixture.js";
import { logRecords } from "../support/app-process.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { helperEntry } from "../support/review-repos.js";
import { addReviewRepo, localJob, openWorkerStand, waitForState, waitForTask, type WorkerStand } from "../support/worker-fixture.js";
import type { WorkerProcess } from "../support/worker-process.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// Bounded reviews (many slow helpers must not hold a worker for hours), across a real worker
// process and the api's real routes: a review deadline on the worker (REVIEWBOT_REVIEW_DEADLINE_MS)
// and a per-installation cap decided by the api (REVIEWBOT_INSTALLATION_CONCURRENCY 1 here).
const DEADLINE_MS = 15_000;

let stand: WorkerStand;
let worker: WorkerProcess;

beforeAll(async () => {
  stand = await openWorkerStand("bounds", { api: { installationConcurrency: 1 } });
  worker = await stand.start({ REVIEWBOT_CONCURRENCY: "3", REVIEWBOT_REVIEW_DEADLINE_MS: String(DEADLINE_MS) });
}, 180_000);
afterAll(async () => {
  await stand.close();
});

/** A repository whose one helper runs `script` in the sandbox; a job for it in `installationId`. */
function jobRunning(script: string, installationId: number): ReturnType<typeof localJob> {
  const repo = addReviewRepo(stand, {
    helpers: [helperEntry("helper", ["sh", "-c", script], { format: "errorformat" })],
    fork: (tree) => {
      tree.write("a.py", "x = 1\n");
    },
  });
  return localJob(repo.name, repo, { installationId });
}

async function span(jobId: string): Promise<[number, number]> {
  const started = await stand.github.getJob(`started.${jobId}`);
  const completed = await stand.github.getJob(`completed.${jobId}`);
  return [started?.timestamp ?? Number.NaN, completed?.timestamp ?? Number.NaN];
}

describe("a review's wall-clock deadline", () => {
  it("kills a hanging helper's sandbox at the deadline and fails the job for good with REVIEW_TIMEOUT", async () => {
    const marker = `review-deadline-${randomUUID()}`;
    const { jobId } = await enqueueReview(stand.reviews, stand.connection, DEFAULT_KEYSPACE, stand.seal, jobRunning(`sleep 120; : ${marker}`, 21));
    expect(await eventually(async () => (await hostProcessesMarked(marker)).length > 0, 60_000)).toBe(true);
    const task = (await waitForTask(stand.github, `failed.${jobId}`, DEADLINE_MS + 20_000).catch((err: unknown) => {
      process.stderr.write(worker.logs());
      throw err;
    })) as Extract<GitHubTask, { kind: "failed" }>;
    expect(task).toMatchObject({
      kind: "failed",
      code: "REVIEW_TIMEOUT",
      reviewJobId: jobId,
      reason: expect.stringContaining(`deadline of ${DEADLINE_MS} ms`) as unknown,
    });
    expect(await waitForState(stand.reviews, jobId, ["failed"], 10_000)).toBe("failed");
    const job = await stand.reviews.getJob(jobId);
    expect(job?.failedReason).toMatch(/^REVIEW_TIMEOUT: /);
    // Final: no retry spent on a review that would run out of time again.
    expect(job?.attemptsMade).toBe(1);
    // It was the deadline: the failure came no sooner than it, and well before the helper's own 60 s.
    const started = (await stand.github.getJob(`started.${jobId}`))?.timestamp ?? 0;
    const failed = (await stand.github.getJob(`failed.${jobId}`))?.timestamp ?? 0;
    expect(failed - started).toBeGreaterThanOrEqual(DEADLINE_MS - 2000);
    expect(failed - started).toBeLessThan(DEADLINE_MS + 15_000);
    expect(await eventually(async () => (await hostProcessesMarked(marker)).length === 0, 10_000)).toBe(true);
    expect(await stand.github.getJob(`completed.${jobId}`)).toBeUndefined();
    // Its fair-share entry and installation slot went with its outcome.
    expect(await stand.connection.sismember("reviewbot:installation:21:jobs", jobId)).toBe(0);
    expect(await stand.api.slots.held(21)).toBe(0);
  });

  it("lets a review under the deadline complete (the negative control)", async () => {
    const { jobId } = await enqueueReview(stand.reviews, stand.connection, DEFAULT_KEYSPACE, stand.seal, jobRunning("sleep 1; echo 'a.py:1: quick'", 22));
    const task = await waitForTask(stand.github, `completed.${jobId}`, DEADLINE_MS + 20_000);
    expect(task.kind).toBe("completed");
    expect(await waitForState(stand.reviews, jobId, ["completed"], 10_000)).toBe("completed");
    expect(await stand.github.getJob(`failed.${jobId}`)).toBeUndefined();
  });
});

describe("the api's per-installation cap, as a worker meets it", () => {
  it("defers a second review of a capped installation while another installation's runs, then runs it without spending an attempt", async () => {
    const first = jobRunning("sleep 4; echo 'a.py:1: slow'", 31);
    const second = jobRunning("sleep 4; echo 'a.py:1: slow'", 31);
    const other = jobRunning("sleep 4; echo 'a.py:1: slow'", 32);
    const ids: string[] = [];
    for (const job of [first, second, other]) ids.push((await enqueueReview(stand.reviews, stand.connection, DEFAULT_KEYSPACE, stand.seal, job)).jobId);
    const [firstId = "", secondId = "", otherId = ""] = ids;
    for (const id of ids) expect((await waitForTask(stand.github, `completed.${id}`, 90_000)).kind).toBe("completed");
    // The check run completes before BullMQ ends the job (and counts its attempt): wait for both.
    for (const id of ids) expect(await waitForState(stand.reviews, id, ["completed"], 10_000)).toBe("completed");
    const spans = new Map([
      [firstId, await span(firstId)],
      [secondId, await span(secondId)],
    ]);
    const [ranFirst = "", ranLater = ""] = [firstId, secondId].sort((x, y) => (spans.get(x)?.[0] ?? 0) - (spans.get(y)?.[0] ?? 0));
    const [earlierStart = Number.NaN, earlierEnd = Number.NaN] = spans.get(ranFirst) ?? [];
    // One review of installation 31 at a time: the later one started after the earlier one published.
    expect(spans.get(ranLater)?.[0]).toBeGreaterThanOrEqual(earlierEnd);
    // Negative control: installation 32 ran while 31 was at its cap.
    const [otherStart, otherEnd] = await span(otherId);
    expect(otherStart).toBeLessThan(earlierEnd);
    expect(otherEnd).toBeGreaterThan(earlierStart);
    // The deferred job was taken more than once, yet spent one attempt, as the other did.
    const deferred = await stand.reviews.getJob(ranLater);
    const undeferred = await stand.reviews.getJob(ranFirst);
    expect([deferred?.attemptsMade, undeferred?.attemptsMade]).toEqual([1, 1]);
    expect(deferred?.attemptsStarted).toBeGreaterThanOrEqual(2);
    const deferrals = logRecords(worker.logs()).filter((line) => line.msg === "installation busy: review deferred");
    expect(deferrals.map((line) => line.jobId)).toContain(ranLater);
    expect(deferrals.map((line) => line.jobId)).not.toContain(otherId);
    expect(await stand.github.getJob(`failed.${ranLater}`)).toBeUndefined();
    const metrics = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
    expect(metrics).toMatch(/^reviewbot_worker_jobs_total\{outcome="busy"\} [1-9]/m);
  });
});

describe("the cap's and the shares' keys under the Redis ACL users", () => {
  it("the api's own user sweeps them; a worker's user can touch none of them", async () => {
    const roles = stand.redis.roles;
    if (roles === null) throw new Error("redis started without ACL users");
    const apiRedis = createRedisConnection(roles.api.url, { name: "test-api-role", blocking: true, password: roles.api.password });
    const workerRedis = createRedisConnection(roles.worker.url, { name: "test-worker-role", blocking: false, password: roles.worker.password });
    const reviews = new Queue(REVIEW_QUEUE, { connection: apiRedis });
    try {
      const slots = new InstallationSlots({ redis: apiRedis, keys: DEFAULT_KEYSPACE, reviews, limit: 1, ttlMs: 60_000 });
      // A share entry and a slot left by jobs that are gone (an api that crashed, a removed job).
      await stand.connection.sadd("reviewbot:installation:41:jobs", "review.41.1.gone");
      await stand.connection.zadd("reviewbot:broker:slots:41", Date.now() + 60_000, "review.41.2.gone");
      await stand.connection.zadd("reviewbot:broker:slots", Date.now() + 60_000, "41/review.41.2.gone");
      const sweeper = startTokenSweeper({
        vault: null,
        slots,
        redis: apiRedis,
        keys: DEFAULT_KEYSPACE,
        reviews,
        logger: createLogger({ level: "silent", scrubber: new SecretScrubber() }),
        intervalMs: 3_600_000,
      });
      try {
        expect(await sweeper.sweep()).toMatchObject({ slots: 1, shares: 1 });
      } finally {
        sweeper.close();
      }
      expect(await stand.connection.exists("reviewbot:installation:41:jobs", "reviewbot:broker:slots:41")).toBe(0);
      for (const command of [
        ["zadd", "reviewbot:broker:slots:41", "0", "review.41.3.mine"],
        ["zrem", "reviewbot:broker:slots", "41/review.41.2.gone"],
        ["srem", "reviewbot:installation:41:jobs", "x"],
      ]) {
        const [name = "", ...args] = command;
        await expect(workerRedis.call(name, ...args)).rejects.toThrow(/NOPERM/);
      }
      // Negative control: the worker's user does reach its own keys.
      expect(await workerRedis.set("reviewbot:lease:41.1", "x", "PX", 1000)).toBe("OK");
    } finally {
      await reviews.close();
      apiRedis.disconnect();
      workerRedis.disconnect();
    }
  });
});
