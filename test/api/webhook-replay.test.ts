import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bodyDigest, bodyKey, deliveryKey } from "@reviewbot/api/webhooks/delivery-ledger";
import { subscribeCancels } from "@reviewbot/queue/cancel-channel";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { latestHead } from "@reviewbot/queue/pull-request-state";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The X-GitHub-Delivery id is not covered by the signature, so a captured delivery can be
// sent again under a fresh id. It must not move the PR's recorded head back or cancel its review.

let api: ApiHarness;
let hook: string;
let connection: Redis;

// A fresh api and Redis per test: each test's worker takes the only job in the queue.
beforeEach(async () => {
  api = await startApi();
  hook = `${api.url}/api/github/webhooks`;
  connection = new Redis(api.redisUrl, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  connection.disconnect();
  await api.close();
});

type Answer = { status: string; jobId?: string; reason?: string };

async function send(body: unknown, id = deliveryId()): Promise<Answer> {
  const res = await sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET });
  expect(res.status).toBe(202);
  return JSON.parse(res.body) as Answer;
}

/** The PR's review of `current` taken by a worker (job active, PR lease held), with its cancel requests recorded. */
async function runningReview(pullNumber: number, current: unknown) {
  const accepted = await send(current);
  expect(accepted.status).toBe("accepted");
  const jobId = accepted.jobId ?? "";
  const worker = new Worker(REVIEW_QUEUE, null, { connection, autorun: false });
  expect((await worker.getNextJob(randomUUID()))?.id).toBe(jobId);
  const lease = new PullRequestLease(connection, DEFAULT_KEYSPACE, { repositoryId: 100, pullNumber }, jobId, 10_000);
  expect(await lease.acquire()).toBe(true);
  const subscriber = new Redis(api.redisUrl);
  const cancelled: string[] = [];
  const unsubscribe = await subscribeCancels(subscriber, DEFAULT_KEYSPACE, (id) => cancelled.push(id));
  return {
    jobId,
    cancelled,
    stop: async () => {
      await lease.release();
      await unsubscribe();
      subscriber.disconnect();
      await worker.close(true);
    },
  };
}

const pr = (pullNumber: number) => ({ repositoryId: 100, pullNumber });

describe("a captured delivery sent again", () => {
  it("is ignored under a fresh id, also once the ledger forgot its body; a newer delivery still supersedes (negative control)", async () => {
    const older = pullRequestPayload({ number: 60, action: "synchronize", head: headSha(601) });
    const current = pullRequestPayload({ number: 60, action: "synchronize", head: headSha(602) });
    expect((await send(older)).status).toBe("accepted");
    const run = await runningReview(60, current);
    try {
      expect(await send(older)).toEqual({ status: "ignored", reason: "replayed" });
      expect(api.logs.filter((line) => line.msg === "webhook ignored" && line.reason === "replayed" && line.level === 40)).toHaveLength(1);

      // 30 days on, the ledger has forgotten the body: the PR's recorded `updated_at` still orders it.
      await api.redis.del(bodyKey(DEFAULT_KEYSPACE, bodyDigest(Buffer.from(JSON.stringify(older)))));
      expect(await send(older)).toEqual({ status: "ignored", reason: "stale_head" });

      await sleep(200);
      expect(await latestHead(api.redis, DEFAULT_KEYSPACE, pr(60))).toBe(headSha(602));
      expect(await api.reviews.getJobState(run.jobId)).toBe("active");
      expect(run.cancelled).toEqual([]);

      const newer = await send(pullRequestPayload({ number: 60, action: "synchronize", head: headSha(603) }));
      expect(newer.status).toBe("accepted");
      expect(await latestHead(api.redis, DEFAULT_KEYSPACE, pr(60))).toBe(headSha(603));
      await expect.poll(() => run.cancelled).toEqual([run.jobId]);
    } finally {
      await run.stop();
    }
  });

  it("is one accepted delivery when copies under different ids race", async () => {
    const body = pullRequestPayload({ number: 61, head: headSha(611) });
    const before = await api.reviews.getJobCountByTypes("waiting", "prioritized");
    const answers = await Promise.all([send(body), send(body), send(body)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual(["accepted", "ignored", "ignored"]);
    expect(answers.filter((answer) => answer.reason === "replayed")).toHaveLength(2);
    expect(await api.reviews.getJobCountByTypes("waiting", "prioritized")).toBe(before + 1);
  });

  it("is still served under its own id when the api died between claiming the body and enqueueing (GitHub's redelivery)", async () => {
    const id = deliveryId();
    const body = pullRequestPayload({ number: 62, head: headSha(621) });
    await api.redis.set(bodyKey(DEFAULT_KEYSPACE, bodyDigest(Buffer.from(JSON.stringify(body)))), id);
    expect((await send(body, id)).status).toBe("accepted");
    expect(await send(body, id)).toEqual({ status: "duplicate" });
    expect(await latestHead(api.redis, DEFAULT_KEYSPACE, pr(62))).toBe(headSha(621));
  });
});

describe("an older delivery never seen before", () => {
  it("is ignored as stale: it neither moves the recorded head nor cancels the running review", async () => {
    const late = pullRequestPayload({ number: 63, action: "synchronize", head: headSha(631) });
    const run = await runningReview(63, pullRequestPayload({ number: 63, action: "synchronize", head: headSha(632) }));
    try {
      const id = deliveryId();
      expect(await send(late, id)).toEqual({ status: "ignored", reason: "stale_head" });
      // Recorded, so GitHub's redelivery of it is a plain duplicate.
      expect(await api.redis.get(deliveryKey(DEFAULT_KEYSPACE, id))).toBe("stale");
      await sleep(200);
      expect(await latestHead(api.redis, DEFAULT_KEYSPACE, pr(63))).toBe(headSha(632));
      expect(await api.reviews.getJobState(run.jobId)).toBe("active");
      expect(run.cancelled).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it("with the recorded head's very `updated_at` is handed to the publisher to look the PR up, superseding nothing", async () => {
    const updatedAt = "2024-04-30T23:00:00Z";
    const first = await send(pullRequestPayload({ number: 64, action: "synchronize", head: headSha(641), updatedAt }));
    const id = deliveryId();
    const tie = await send(pullRequestPayload({ number: 64, action: "synchronize", head: headSha(642), updatedAt }), id);
    expect(tie).toEqual({ status: "accepted", jobId: `resolve.${id}` });
    expect((await api.github.getJob(`resolve.${id}`))?.data).toMatchObject({ kind: "resolve", pullNumber: 64, deliveryId: id, trigger: "pull_request" });
    expect(await latestHead(api.redis, DEFAULT_KEYSPACE, pr(64))).toBe(headSha(641));
    expect(["waiting", "prioritized"]).toContain(await api.reviews.getJobState(first.jobId ?? ""));
  });
});
