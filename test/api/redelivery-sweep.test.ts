import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiMetrics } from "@reviewbot/api/api-metrics";
import { createRedeliveryMetrics, type RedeliveryMetrics } from "@reviewbot/api/redelivery/redelivery-metrics";
import { runRedeliverySweep, type SweepResult } from "@reviewbot/api/redelivery/redelivery-sweep";
import { deliveryKey } from "@reviewbot/api/webhooks/delivery-ledger";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { createGitHubApp, type GitHubApp } from "@reviewbot/github/create-github-app";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { hookDeliveriesOf, type HookDeliveries, type StandInHookDelivery } from "../support/github-stand-in-hook-deliveries.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// Issue 25, part 3b: deliveries the api refused while Redis was down are brought back by the
// sweep, each once, through GitHub's own redelivery (the stand-in re-sends them to the api).
const APP_ID = 4242;
const REPOSITORY_ID = 400;
let dataDir: string;
let redis: LocalRedis;
let api: ApiHarness;
let standIn: GitHubStandIn;
let hooks: HookDeliveries;
let app: GitHubApp;
let metrics: RedeliveryMetrics;
const key = generateTestAppKey();
const logger = createLogger({ level: "silent", scrubber: new SecretScrubber() });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "reviewbot-redelivery-"));
  redis = await startLocalRedis({ dataDir });
  api = await startApi({ redisUrl: redis.url, enqueueDeadlineMs: 500 });
  standIn = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories: { "octo/hello": REPOSITORY_ID } });
  hooks = hookDeliveriesOf(standIn.state);
  hooks.target = { url: `${api.url}/api/github/webhooks`, secret: SECRET };
  app = appWith(key.privateKey);
  metrics = createRedeliveryMetrics(createApiMetrics([]).registry);
});

afterAll(async () => {
  await api.close();
  await standIn.close();
  await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function appWith(privateKey: string): GitHubApp {
  return createGitHubApp({
    appId: APP_ID,
    privateKey,
    baseUrl: standIn.url,
    redis: api.redis,
    keys: DEFAULT_KEYSPACE,
    scrubber: new SecretScrubber(),
    logger,
    serverErrorRetryBaseMs: 1,
  });
}

function pull(number: number): unknown {
  return pullRequestPayload({ number, repositoryId: REPOSITORY_ID, repository: "octo/hello" });
}

async function jobsOf(number: number): Promise<number> {
  const jobs = await api.reviews.getJobs(["waiting", "delayed", "prioritized", "active", "completed", "failed"]);
  return jobs.filter((job) => job.id?.startsWith(`review.${String(REPOSITORY_ID)}.${String(number)}.`)).length;
}

function sweep(maxPerRun: number): Promise<SweepResult> {
  return runRedeliverySweep({ app, redis: api.redis, keys: DEFAULT_KEYSPACE, metrics, logger, lookbackMs: 3_600_000, maxPerRun, perPage: 2 });
}

/** `POST /app/hook/deliveries/{id}/attempts` requests the stand-in received (its `calls` leaves `/app/` out). */
function redeliveryRequests(): GitHubStandIn["requests"] {
  return standIn.requests.filter((request) => request.method === "POST" && /^\/app\/hook\/deliveries\/\d+\/attempts$/.test(request.path));
}

const requested = (result: SweepResult): string[] => Object.entries(result.outcomes).flatMap(([guid, outcome]) => (outcome === "requested" ? [guid] : []));

describe("the redelivery sweep", () => {
  const lost: StandInHookDelivery[] = [];
  let landed: StandInHookDelivery;
  let recovered: StandInHookDelivery;

  it("sees the api refuse deliveries while its Redis is down", async () => {
    for (const number of [1, 2]) expect((await hooks.deliver("pull_request", pull(number))).statusCode).toBe(202);
    // Down long enough that every command the refused deliveries queued has been given up on: one
    // still queued when Redis is back would land after its 503 (then it is in the ledger, and the
    // sweep rightly leaves it alone; here the sweep must meet exactly three).
    const restarting = redis.restart(2500);
    await sleep(300);
    const refused = await Promise.all([3, 4, 5, 6, 7].map((number) => hooks.deliver("pull_request", pull(number))));
    lost.push(...refused.slice(0, 3));
    // Negative controls: one refused delivery that an operator already redelivered by hand, and
    // one refused after it landed (its ledger record written, the answer lost): neither is asked for.
    [recovered, landed] = refused.slice(3) as [StandInHookDelivery, StandInHookDelivery];
    await restarting;
    for (let tries = 0; (await api.redis.ping().catch(() => "")) !== "PONG"; tries++) {
      if (tries > 100) throw new Error("the api did not reconnect");
      await sleep(50);
    }
    expect([...lost, recovered, landed].map((attempt) => attempt.statusCode)).toEqual([503, 503, 503, 503, 503]);
    expect((await hooks.deliver("pull_request", pull(6), recovered.guid)).statusCode).toBe(202);
    await api.redis.set(deliveryKey(DEFAULT_KEYSPACE, landed.guid), "recorded-before-the-503");
    for (const number of [3, 4, 5]) expect(await jobsOf(number)).toBe(0);
  });

  it("asks GitHub to redeliver exactly the lost ones, once each, across runs and concurrent api replicas", async () => {
    const first = await sweep(2);
    expect(first.lost).toBe(3);
    expect(requested(first)).toHaveLength(2);
    expect(await metrics.backlog.get()).toMatchObject({ values: [{ value: 1 }] });
    // Two api replicas sweep at once: the one lost delivery left is asked for by one of them.
    const [a, b] = await Promise.all([sweep(2), sweep(2)]);
    expect([...requested(first), ...requested(a), ...requested(b)].sort()).toEqual(lost.map((attempt) => attempt.guid).sort());
    await hooks.settled();
    const posts = redeliveryRequests();
    expect(posts.map((post) => post.path).sort()).toEqual(lost.map((attempt) => `/app/hook/deliveries/${String(attempt.id)}/attempts`).sort());
    // GitHub's redeliveries keep the guid, get a new id, and the api now takes them.
    const redelivered = hooks.attempts.filter((attempt) => attempt.redelivery);
    expect(redelivered.map((attempt) => [attempt.guid, attempt.statusCode]).sort()).toEqual(lost.map((attempt) => [attempt.guid, 202]).sort());
    for (const number of [3, 4, 5]) expect(await jobsOf(number)).toBe(1);
    for (const number of [1, 2, 6]) expect(await jobsOf(number)).toBe(1);
  });

  it("asks for nothing once every delivery is in", async () => {
    const posted = redeliveryRequests().length;
    const again = await sweep(10);
    expect(again).toEqual({ lost: 0, outcomes: {} });
    expect(redeliveryRequests()).toHaveLength(posted);
    expect(await metrics.backlog.get()).toMatchObject({ values: [{ value: 0 }] });
    const counted = (await metrics.redeliveries.get()).values.find((value) => value.labels.outcome === "requested");
    expect(counted?.value).toBe(3);
  });

  it("never asks twice for a guid whose redelivery failed too: it stays in the backlog", async () => {
    hooks.target = null;
    const down = await hooks.deliver("pull_request", pull(8));
    const first = await sweep(10);
    expect(requested(first)).toEqual([down.guid]);
    await hooks.settled();
    expect(hooks.attempts.filter((attempt) => attempt.guid === down.guid).map((attempt) => attempt.statusCode)).toEqual([0, 0]);
    const second = await sweep(10);
    expect(second).toEqual({ lost: 1, outcomes: {} });
    expect(await metrics.backlog.get()).toMatchObject({ values: [{ value: 1 }] });
    hooks.target = { url: `${api.url}/api/github/webhooks`, secret: SECRET };
  });

  it("is refused by GitHub without the App's key", async () => {
    const impostor = createGitHubApp({
      appId: APP_ID,
      privateKey: generateTestAppKey().privateKey,
      baseUrl: standIn.url,
      redis: api.redis,
      keys: DEFAULT_KEYSPACE,
      scrubber: new SecretScrubber(),
      logger,
    });
    await expect(
      runRedeliverySweep({ app: impostor, redis: api.redis, keys: DEFAULT_KEYSPACE, metrics, logger, lookbackMs: 3_600_000, maxPerRun: 10 }),
    ).rejects.toThrow();
  });
});
