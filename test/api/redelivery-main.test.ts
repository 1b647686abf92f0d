import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { attemptKey } from "@reviewbot/api/redelivery/redelivery-sweep";
import { deliveryKey } from "@reviewbot/api/webhooks/delivery-ledger";
import { startApp, type AppProcess } from "../support/app-process.js";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { hookDeliveriesOf, type StandInHookDelivery } from "../support/github-stand-in-hook-deliveries.js";
import { freePort, startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { SECRET } from "./api-harness.js";
import { pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The sweep as main runs it: the real api process, its ACL user, its timer, its /metrics.
const APP_ID = 4343;
const key = generateTestAppKey();
let redis: LocalRedis;
let admin: Redis;
let standIn: GitHubStandIn;
let api: AppProcess;
let lost: StandInHookDelivery;
let apiUrl: string;

beforeAll(async () => {
  redis = await startLocalRedis({ acl: true });
  admin = new Redis(redis.url);
  standIn = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories: { "octo/hello": 500 } });
  const hooks = hookDeliveriesOf(standIn.state);
  // The api is down: GitHub cannot connect.
  lost = await hooks.deliver("pull_request", pullRequestPayload({ number: 1, repositoryId: 500, repository: "octo/hello" }));
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${String(port)}`;
  hooks.target = { url: `${apiUrl}/api/github/webhooks`, secret: SECRET };
  api = startApp("api", "api-redelivery", {
    REDIS_URL: redis.roles?.api.url ?? "",
    REDIS_PASSWORD: redis.roles?.api.password ?? "",
    REVIEWBOT_PORT: String(port),
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    GITHUB_APP_ID: String(APP_ID),
    GITHUB_PRIVATE_KEY: key.privateKey,
    GITHUB_API_URL: standIn.url,
    REVIEWBOT_REDELIVERY_INTERVAL_MS: "300",
  });
  await api.waitForLog(/"api listening"/);
});

afterAll(async () => {
  await api.stop();
  admin.disconnect();
  await standIn.close();
  await redis.stop();
});

it("brings a delivery GitHub could not make back once the api is up, once, and counts it", async () => {
  const hooks = hookDeliveriesOf(standIn.state);
  for (let tries = 0; !hooks.attempts.some((attempt) => attempt.redelivery); tries++) {
    if (tries > 200) throw new Error(`no redelivery:\n${api.logs().slice(-3000)}`);
    await sleep(50);
  }
  await hooks.settled();
  expect(hooks.attempts.map((attempt) => [attempt.guid, attempt.redelivery, attempt.statusCode])).toEqual([
    [lost.guid, false, 0],
    [lost.guid, true, 202],
  ]);
  expect(await admin.exists(deliveryKey(DEFAULT_KEYSPACE, lost.guid), attemptKey(DEFAULT_KEYSPACE, lost.guid))).toBe(2);
  // Several more runs: nothing more is asked for.
  await sleep(1000);
  expect(standIn.requests.filter((request) => request.method === "POST" && request.path.startsWith("/app/hook/deliveries/"))).toHaveLength(1);
  const metrics = await (await fetch(`${apiUrl}/metrics`)).text();
  expect(metrics).toMatch(/^reviewbot_redeliveries_total\{outcome="requested"\} 1$/m);
  expect(metrics).toMatch(/^reviewbot_redelivery_backlog 0$/m);
});
