import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTokenSweeper } from "@reviewbot/api/broker/token-sweeper";
import { createLogger } from "@reviewbot/core/logger";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startMintingApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { EMPTY_REPORT } from "./published-reports.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The per-installation concurrency cap (decided by the api: workers are untrusted) on the api's
// real claim and report routes, with a BullMQ consumer taking jobs under lock tokens of our
// choosing, as a worker does.
const APP_ID = 4343;
const REPOSITORIES = { "octo/widgets": 9101, "octo/gadgets": 9102 } as const;

const report = EMPTY_REPORT;

interface Stand {
  readonly api: ApiHarness;
  readonly standIn: GitHubStandIn;
  readonly consumer: Worker;
  readonly connection: Redis;
}

let capped: Stand;

async function openStand(options: { installationConcurrency: number; slotTtlMs?: number }): Promise<Stand> {
  const key = generateTestAppKey();
  const standIn = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories: { ...REPOSITORIES } });
  const { api } = await startMintingApi(
    {
      workers: 1,
      ...options,
    },
    { url: standIn.url, appId: APP_ID, privateKey: key.privateKey },
  );
  const connection = createRedisConnection(api.redisUrl, { name: "test-consumer", blocking: true });
  return { api, standIn, connection, consumer: new Worker(REVIEW_QUEUE, null, { connection, autorun: false }) };
}

async function closeStand(stand: Stand): Promise<void> {
  await stand.consumer.close();
  stand.connection.disconnect();
  await stand.api.close();
  await stand.standIn.close();
}

beforeAll(async () => {
  capped = await openStand({ installationConcurrency: 2 });
});
afterAll(async () => {
  await closeStand(capped);
});

let pullNumber = 0;

/** Review jobs enqueued the only way the api enqueues one (a signed webhook), then all taken as a worker takes them; by PR. */
async function enqueueAndTake(
  stand: Stand,
  jobs: readonly { installationId: number; repository: keyof typeof REPOSITORIES }[],
): Promise<{ id: string; lock: string }[]> {
  await stand.api.reviews.obliterate({ force: true });
  const ids: string[] = [];
  for (const { installationId, repository } of jobs) {
    pullNumber += 1;
    const body = pullRequestPayload({ installationId, repositoryId: REPOSITORIES[repository], repository, number: pullNumber, head: headSha(pullNumber) });
    const res = await sendWebhook(`${stand.api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
    ids.push((JSON.parse(res.body) as { jobId: string }).jobId);
  }
  const locks = new Map<string, string>();
  for (let taken = 0; taken < ids.length; taken++) {
    const lock = `lock-${pullNumber}-${taken}`;
    const job: Job | undefined = await stand.consumer.getNextJob(lock);
    if (job?.id === undefined) throw new Error("no job to take");
    locks.set(job.id, lock);
  }
  return ids.map((id) => ({ id, lock: locks.get(id) ?? "" }));
}

async function post(
  stand: Stand,
  path: "claim" | "report",
  body: unknown,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${stand.api.url}/internal/jobs/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${stand.api.workerCredentials[0] ?? ""}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as Record<string, unknown> };
}

const claim = (stand: Stand, job: { id: string; lock: string }, lockToken = job.lock) => post(stand, "claim", { jobId: job.id, lockToken });
const complete = (stand: Stand, job: { id: string; lock: string }) =>
  post(stand, "report", { jobId: job.id, lockToken: job.lock, outcome: { kind: "completed", report } });
const code = (res: { body: Record<string, unknown> }): unknown => (res.body.error as { code?: unknown } | undefined)?.code;

describe("per-installation concurrency cap (REVIEWBOT_INSTALLATION_CONCURRENCY 2)", () => {
  it("defers the third claim of one installation with 429 and Retry-After, serves another installation, and the third once a slot frees", async () => {
    const [a1, a2, a3, b1] = await enqueueAndTake(capped, [
      { installationId: 701, repository: "octo/widgets" },
      { installationId: 701, repository: "octo/widgets" },
      { installationId: 701, repository: "octo/widgets" },
      { installationId: 702, repository: "octo/gadgets" },
    ]);
    if (a1 === undefined || a2 === undefined || a3 === undefined || b1 === undefined) throw new Error("jobs missing");
    expect((await claim(capped, a1)).status).toBe(200);
    expect((await claim(capped, a2)).status).toBe(200);
    const minted = capped.standIn.minted.length;
    const busy = await claim(capped, a3);
    expect([busy.status, code(busy), busy.retryAfter]).toEqual([429, "INSTALLATION_BUSY", "5"]);
    // Refused before anything was minted or shown on GitHub.
    expect(capped.standIn.minted.length).toBe(minted);
    expect(await capped.api.github.getJob(`started.${a3.id}`)).toBeUndefined();
    expect(capped.api.logs.some((line) => line.msg === "claim deferred: installation busy" && line.jobId === a3.id && line.installationId === 701)).toBe(true);
    // Negative control: another installation's claim is served while this one is at its cap.
    const other = await claim(capped, b1);
    expect([other.status, other.body.token]).toEqual([200, expect.any(String)]);
    // An outcome frees its job's slot: the deferred job is served under the same lock.
    expect((await complete(capped, a1)).status).toBe(200);
    const served = await claim(capped, a3);
    expect([served.status, served.body.job]).toEqual([200, expect.objectContaining({ installationId: 701, pullNumber: pullNumber - 1 })]);
    expect(await capped.api.github.getJob(`started.${a3.id}`)).toBeDefined();
    expect(await capped.api.slots.held(701)).toBe(2);
  });

  it("counts only claims that passed the job's checks: refused claims take no slot", async () => {
    const [a1, a2, a3] = await enqueueAndTake(capped, [
      { installationId: 711, repository: "octo/widgets" },
      { installationId: 711, repository: "octo/widgets" },
      { installationId: 711, repository: "octo/widgets" },
    ]);
    if (a1 === undefined || a2 === undefined || a3 === undefined) throw new Error("jobs missing");
    expect((await claim(capped, a1)).status).toBe(200);
    for (const wrong of ["lock-wrong-1", "lock-wrong-2", "lock-wrong-3"]) expect(code(await claim(capped, a2, wrong))).toBe("JOB_NOT_HELD");
    expect((await claim(capped, a2)).status).toBe(200);
    // The same claim again keeps its slot, and the cap still holds for the next job.
    expect((await claim(capped, a2)).status).toBe(200);
    expect(code(await claim(capped, a3))).toBe("INSTALLATION_BUSY");
  });

  it("the sweeper frees the slot of a job whose lock is gone (stalled, handed back), and keeps a live job's", async () => {
    const [a1, a2] = await enqueueAndTake(capped, [
      { installationId: 721, repository: "octo/widgets" },
      { installationId: 721, repository: "octo/widgets" },
    ]);
    if (a1 === undefined || a2 === undefined) throw new Error("jobs missing");
    expect((await claim(capped, a1)).status).toBe(200);
    expect((await claim(capped, a2)).status).toBe(200);
    // a1 goes back to the queue without a report, as a stalled or handed-back job does.
    await (await capped.api.reviews.getJob(a1.id))?.moveToDelayed(Date.now() + 60_000, a1.lock);
    expect(await capped.api.slots.held(721)).toBe(2);
    const sweeper = startTokenSweeper({
      vault: capped.api.vault,
      slots: capped.api.slots,
      redis: capped.api.redis,
      keys: DEFAULT_KEYSPACE,
      reviews: capped.api.reviews,
      logger: createLogger({ level: "silent", scrubber: capped.api.scrubber }),
      intervalMs: 3_600_000,
    });
    try {
      // Earlier cases' jobs were obliterated holding slots: those go too.
      expect((await sweeper.sweep()).slots).toBeGreaterThanOrEqual(1);
      expect(await capped.api.slots.held(721)).toBe(1);
      // Negative control: a2's slot stays (its lock is live), on this sweep and the next.
      expect((await sweeper.sweep()).slots).toBe(0);
    } finally {
      sweeper.close();
    }
    expect(await capped.api.redis.zrange("reviewbot:broker:slots:721", 0, -1)).toEqual([a2.id]);
  });

  it("a claim at the cap first frees the slots of jobs that ended unseen since the last sweep", async () => {
    const [a1, a2, a3, a4] = await enqueueAndTake(capped, [
      { installationId: 741, repository: "octo/widgets" },
      { installationId: 741, repository: "octo/widgets" },
      { installationId: 741, repository: "octo/widgets" },
      { installationId: 741, repository: "octo/widgets" },
    ]);
    if (a1 === undefined || a2 === undefined || a3 === undefined || a4 === undefined) throw new Error("jobs missing");
    expect((await claim(capped, a1)).status).toBe(200);
    expect((await claim(capped, a2)).status).toBe(200);
    // a1 is removed from the queue (an operator, the dashboard) while it runs: no report, no sweep yet.
    await capped.api.redis.del(`bull:reviews:${a1.id}:lock`);
    expect((await claim(capped, a3)).status).toBe(200);
    // a2 and a3 are live: the cap holds.
    expect(code(await claim(capped, a4))).toBe("INSTALLATION_BUSY");
    expect((await capped.api.redis.zrange("reviewbot:broker:slots:741", 0, -1)).sort()).toEqual([a2.id, a3.id].sort());
  });
});

describe("slots expire (robust to an api that crashed before freeing them)", () => {
  let short: Stand;

  beforeAll(async () => {
    short = await openStand({ installationConcurrency: 1, slotTtlMs: 1500 });
  });
  afterAll(async () => {
    await closeStand(short);
  });

  it("frees a slot at its deadline, its keys carry an expiry, and the sweeper drops the expired entry", async () => {
    const [a1, a2] = await enqueueAndTake(short, [
      { installationId: 731, repository: "octo/widgets" },
      { installationId: 731, repository: "octo/widgets" },
    ]);
    if (a1 === undefined || a2 === undefined) throw new Error("jobs missing");
    expect((await claim(short, a1)).status).toBe(200);
    expect(code(await claim(short, a2))).toBe("INSTALLATION_BUSY");
    const ttl = await short.api.redis.pttl("reviewbot:broker:slots:731");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3000);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    // a1 still runs (its lock is live), but its slot has run out: the cap counts it no more.
    expect((await claim(short, a2)).status).toBe(200);
    const sweeper = startTokenSweeper({
      vault: null,
      slots: short.api.slots,
      redis: short.api.redis,
      keys: DEFAULT_KEYSPACE,
      reviews: short.api.reviews,
      logger: createLogger({ level: "silent", scrubber: short.api.scrubber }),
      intervalMs: 3_600_000,
    });
    try {
      // a1's expired entry goes; a2's live one stays.
      expect((await sweeper.sweep()).slots).toBe(1);
    } finally {
      sweeper.close();
    }
    expect(await short.api.redis.zrange("reviewbot:broker:slots", 0, -1)).toEqual([`731/${a2.id}`]);
  });
});
