import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeCancels } from "@reviewbot/queue/cancel-channel";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { isSuperseded, latestHead, recordLatestHead } from "@reviewbot/queue/pull-request-state";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

/** The seal matters to the api, not to supersession: any key does here. */
const seal = QueueSeal.fromSecret("supersession-test-secret");
let redis: LocalRedis;
let connection: Redis;

beforeAll(async () => {
  redis = await startLocalRedis();
  connection = new Redis(redis.port, "127.0.0.1", { maxRetriesPerRequest: null });
});

afterAll(async () => {
  connection.disconnect();
  await redis.stop();
});

let clock = Date.parse("2024-05-01T00:00:00Z");

/** A review job; its `updated_at` is a second later than the previous job's unless given. */
function job(overrides: Partial<ReviewJob>): ReviewJob {
  clock += 1000;
  return {
    installationId: 1,
    repositoryId: 100,
    repository: "octo/app",
    pullNumber: 5,
    headSha: "1".repeat(40),
    baseSha: "2".repeat(40),
    baseRef: "main",
    defaultBranch: "main",
    repositoryPrivate: true,
    pullUpdatedAt: new Date(clock).toISOString(),
    headFrom: "event",
    deliveryId: randomUUID(),
    trigger: "pull_request",
    reply: null,
    ...overrides,
  };
}

function freshQueue(): Queue {
  return new Queue(`reviews-${randomUUID()}`, { connection });
}

describe("one live review per PR", () => {
  it("removes the waiting job of an older head and marks it superseded", async () => {
    const queue = freshQueue();
    const older = job({ headSha: "a".repeat(40) });
    const newer = job({ headSha: "b".repeat(40) });
    const first = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, older);
    const second = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, newer);
    expect(second).toMatchObject({ removed: first.jobId, cancelled: null });
    expect(await queue.getJob(first.jobId)).toBeUndefined();
    expect(await queue.getJobCountByTypes("waiting", "prioritized")).toBe(1);
    expect(await isSuperseded(connection, DEFAULT_KEYSPACE, older)).toBe(true);
    expect(await isSuperseded(connection, DEFAULT_KEYSPACE, newer)).toBe(false);
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it("supersedes a job whose hash a worker grew to 20 MB without reading it; a job of the same head is read (negative control)", async () => {
    const queue = freshQueue();
    const pr = { pullNumber: 55 };
    const older = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: "c".repeat(40) }));
    await connection.hset(queue.toKey(older.jobId), "data", JSON.stringify("x".repeat(20 * 1024 * 1024)));
    const before = process.memoryUsage().rss;
    const newer = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: "d".repeat(40) }));
    expect(newer.removed).toBe(older.jobId);
    expect(process.memoryUsage().rss - before).toBeLessThan(30 * 1024 * 1024);
    const read = (await queue.getJob(newer.jobId))?.data as ReviewJob | undefined;
    expect(read?.headSha).toBe("d".repeat(40));
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it("cancels the run of an older head on whichever host holds the PR, and leaves a same-head run alone", async () => {
    const queue = freshQueue();
    const pr = { repositoryId: 101 };
    const first = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: "c".repeat(40) }));
    // A worker takes the job and its PR lease, as apps/worker does before running.
    const worker = new Worker(queue.name, null, { connection, autorun: false });
    expect((await worker.getNextJob(randomUUID()))?.id).toBe(first.jobId);
    const lease = new PullRequestLease(connection, DEFAULT_KEYSPACE, { ...pr, pullNumber: 5 }, first.jobId, 5000);
    expect(await lease.acquire()).toBe(true);
    const subscriber = new Redis(redis.port, "127.0.0.1");
    const cancelled: string[] = [];
    const unsubscribe = await subscribeCancels(subscriber, DEFAULT_KEYSPACE, (id) => cancelled.push(id));

    const sameHead = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: "c".repeat(40) }));
    expect(sameHead).toMatchObject({ removed: null, cancelled: null });
    const newerHead = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: "d".repeat(40) }));
    expect(newerHead).toMatchObject({ removed: sameHead.jobId, cancelled: first.jobId });
    await expect.poll(() => cancelled).toEqual([first.jobId]);

    await lease.release();
    await unsubscribe();
    subscriber.disconnect();
    await worker.close(true);
    await queue.obliterate({ force: true });
    await queue.close();
  });
});

describe("the ordering of a PR's heads (recordLatestHead)", () => {
  const T = "2024-06-01T12:00:00Z";
  const EARLIER = "2024-06-01T11:59:59Z";
  const LATER = "2024-06-01T12:00:01Z";
  const [A, B] = ["a".repeat(40), "b".repeat(40)];
  let pullNumber = 100;

  it.each([
    ["another head, later", { headSha: B, pullUpdatedAt: LATER }, { kind: "recorded", previous: "review.first" }, B],
    ["another head, earlier (a late or replayed event)", { headSha: B, pullUpdatedAt: EARLIER }, { kind: "stale", recordedHead: A, tie: false }, A],
    ["another head, same time, from a payload", { headSha: B, pullUpdatedAt: T }, { kind: "stale", recordedHead: A, tie: true }, A],
    ["another head, same time, from GitHub's API", { headSha: B, pullUpdatedAt: T, headFrom: "api" }, { kind: "recorded", previous: "review.first" }, B],
    ["another head, earlier, from GitHub's API", { headSha: B, pullUpdatedAt: EARLIER, headFrom: "api" }, { kind: "stale", recordedHead: A, tie: false }, A],
    ["the same head, earlier (a re-review)", { headSha: A, pullUpdatedAt: EARLIER }, { kind: "recorded", previous: "review.first" }, A],
    ["the same head, same time", { headSha: A, pullUpdatedAt: T }, { kind: "recorded", previous: "review.first" }, A],
  ] as const)("%s", async (_name, incoming, outcome, head) => {
    pullNumber += 1;
    await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ repositoryId: 300, pullNumber, headSha: A, pullUpdatedAt: T }), "review.first");
    expect(await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ repositoryId: 300, pullNumber, ...incoming }), "review.second")).toEqual(outcome);
    expect(await latestHead(connection, DEFAULT_KEYSPACE, { repositoryId: 300, pullNumber })).toBe(head);
  });

  it("keeps the later time when the same head comes again with an earlier one", async () => {
    const pr = { repositoryId: 301, pullNumber: 1 };
    await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ ...pr, headSha: A, pullUpdatedAt: LATER }), "review.1");
    await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ ...pr, headSha: A, pullUpdatedAt: EARLIER }), "review.2");
    expect(await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ ...pr, headSha: B, pullUpdatedAt: T }), "review.3")).toMatchObject({ kind: "stale" });
  });

  it("records over a state written before times were kept (no `at`)", async () => {
    const pr = { repositoryId: 302, pullNumber: 1 };
    await connection.hset(`reviewbot:pr:${pr.repositoryId}.${pr.pullNumber}`, "head", A, "job", "review.legacy");
    expect(await recordLatestHead(connection, DEFAULT_KEYSPACE, job({ ...pr, headSha: B, pullUpdatedAt: EARLIER }), "review.new")).toEqual({
      kind: "recorded",
      previous: "review.legacy",
    });
  });

  it("does not enqueue a stale job, and leaves the PR's waiting job in place", async () => {
    const queue = freshQueue();
    const pr = { repositoryId: 303 };
    const current = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: B, pullUpdatedAt: T }));
    const late = await enqueueReview(queue, connection, DEFAULT_KEYSPACE, seal, job({ ...pr, headSha: A, pullUpdatedAt: EARLIER }));
    expect(late).toMatchObject({ removed: null, cancelled: null, stale: { kind: "stale", recordedHead: B, tie: false } });
    expect(await queue.getJob(late.jobId)).toBeUndefined();
    expect(await queue.getJob(current.jobId)).toBeDefined();
    expect(await isSuperseded(connection, DEFAULT_KEYSPACE, job({ ...pr, headSha: B }))).toBe(false);
    await queue.obliterate({ force: true });
    await queue.close();
  });
});

describe("PullRequestLease", () => {
  const pr = { repositoryId: 200, pullNumber: 1 };

  it("lets one job of a PR hold it at a time and frees it on release", async () => {
    const a = new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-a", 2000);
    const b = new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-b", 2000);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    await b.release(); // not the holder: must not free a's lease
    expect(await new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-c", 2000).acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
    await b.release();
  });

  it("is renewed while held, and frees itself when the holder stops renewing (a killed worker)", async () => {
    const holder = new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-d", 300);
    expect(await holder.acquire()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-e", 300).acquire()).toBe(false);
    await holder.release();
    // A holder that died leaves its key to expire: nobody renews it.
    const key = `reviewbot:lease:${pr.repositoryId}.${pr.pullNumber}`;
    await connection.set(key, "dead-job", "PX", 200);
    const next = new PullRequestLease(connection, DEFAULT_KEYSPACE, pr, "job-f", 300);
    expect(await next.acquire()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await next.acquire()).toBe(true);
    await next.release();
  });
});
