import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenMinter } from "@reviewbot/api/token-broker-handler";
import { createLogger } from "@reviewbot/core/logger";
import { createGitHubApp } from "@reviewbot/github/create-github-app";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";

const CREDENTIAL = "worker-credential-0123456789abcdef0123456789";
const APP_ID = 4242;
const INSTALLATION_ID = 77;
const REPOSITORY_ID = 9001;

let api: ApiHarness;
let standIn: GitHubStandIn;
let consumerConnection: Redis;
let consumer: Worker;
let mint: TokenMinter = () => Promise.reject(new Error("not wired yet"));

beforeAll(async () => {
  api = await startApi({ tokenBroker: { credential: CREDENTIAL, mint: (installationId, repositoryId) => mint(installationId, repositoryId) } });
  const key = generateTestAppKey();
  standIn = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories: { "octo/widgets": REPOSITORY_ID, "octo/secrets": 9002 } });
  const app = createGitHubApp({
    appId: APP_ID,
    privateKey: key.privateKey,
    baseUrl: standIn.url,
    redis: api.redis,
    scrubber: api.scrubber,
    logger: createLogger({ level: "silent", scrubber: api.scrubber }),
  });
  mint = (installationId, repositoryId) => mintRepositoryToken(app, installationId, repositoryId);
  consumerConnection = createRedisConnection(api.redisServer.url, { name: "test-consumer", blocking: true });
  consumer = new Worker(REVIEW_QUEUE, null, { connection: consumerConnection, autorun: false });
});
afterAll(async () => {
  await consumer.close();
  consumerConnection.disconnect();
  await standIn.close();
  await api.close();
});

async function enqueue(pullNumber: number): Promise<string> {
  const body = pullRequestPayload({ installationId: INSTALLATION_ID, repositoryId: REPOSITORY_ID, repository: "octo/widgets", number: pullNumber, head: headSha(pullNumber) });
  const res = await sendWebhook(`${api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
  return (JSON.parse(res.body) as { jobId: string }).jobId;
}

async function askToken(jobId: unknown, authorization: string | null = `Bearer ${CREDENTIAL}`): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${api.url}/internal/token`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === null ? {} : { authorization }) },
    body: JSON.stringify({ jobId }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("token broker", () => {
  it.each([
    ["no credential", null],
    ["a wrong credential", `Bearer ${CREDENTIAL.slice(0, -1)}x`],
    ["a longer credential", `Bearer ${CREDENTIAL}0`],
    ["basic auth", `Basic ${Buffer.from(`worker:${CREDENTIAL}`).toString("base64")}`],
  ])("refuses %s with 401", async (_name, authorization) => {
    const jobId = await enqueue(1);
    const res = await askToken(jobId, authorization);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
    expect(standIn.minted).toHaveLength(0);
  });

  it("refuses an unknown job with 403", async () => {
    const res = await askToken("review.9001.1.no-such-delivery");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: "TOKEN_DENIED" } });
  });

  it("refuses a job that is waiting, not active, with 403", async () => {
    const jobId = await enqueue(2);
    expect(await (await api.reviews.getJob(jobId))?.getState()).toMatch(/waiting|prioritized/);
    expect((await askToken(jobId)).status).toBe(403);
    expect(standIn.minted).toHaveLength(0);
  });

  it("refuses a malformed body with 400", async () => {
    expect((await askToken(42)).status).toBe(400);
  });

  it("mints a read-only token scoped to the active job's repository, and never logs it", async () => {
    await api.reviews.drain();
    const jobId = await enqueue(3);
    const active = (await consumer.getNextJob("holder")) as Job;
    expect(active.id).toBe(jobId);
    const res = await askToken(jobId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.any(String) as unknown, expiresAt: expect.any(String) as unknown });
    const minted = standIn.minted.at(-1);
    expect(minted).toMatchObject({ token: res.body.token, installationId: INSTALLATION_ID, repositoryIds: [REPOSITORY_ID] });
    expect(minted?.permissions).toEqual({ contents: "read", pull_requests: "read", metadata: "read" });
    expect(api.scrubber.scrub(`x ${String(res.body.token)} y`)).toBe("x [REDACTED] y");
    expect(JSON.stringify(api.logs)).not.toContain(String(res.body.token));
    expect(api.logs.some((line) => line.msg === "repository token issued" && line.jobId === jobId)).toBe(true);

    // Once the job is finished, the same job id gets nothing.
    await active.moveToCompleted("done", "holder", false);
    expect((await askToken(jobId)).status).toBe(403);
  });
});
