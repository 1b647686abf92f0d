import { writeFileSync } from "node:fs";
import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTokenSweeper } from "@reviewbot/api/broker/token-sweeper";
import { createLogger } from "@reviewbot/core/logger";
import { revokeRepositoryToken } from "@reviewbot/github/revoke-repository-token";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { REVIEW_JOB_OPTIONS } from "@reviewbot/queue/review-queue";
import { parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { sendWebhook } from "../support/webhook-client.js";
import { SEAL, SECRET, startApi, startMintingApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { EMPTY_REPORT } from "./published-reports.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The api's worker routes attacked by a worker host, with no Redis ACLs at all: what is shown here
// holds on the api's own checks (the seal, the lock, the claim), whatever Redis lets a worker write.
const APP_ID = 4242;
const INSTALLATION_ID = 77;
const REPOSITORY_ID = 9001;
const PRIVATE_REPOSITORY_ID = 9002;

let api: ApiHarness;
let standIn: GitHubStandIn;
let consumerConnection: Redis;
let consumer: Worker;
let alice: string;
let minter: (installationId: number, repositoryId: number) => Promise<{ token: string; expiresAt: string }>;
let bob: string;

const report = EMPTY_REPORT;

beforeAll(async () => {
  const key = generateTestAppKey();
  standIn = await startGitHubStandIn({
    appId: APP_ID,
    publicKey: key.publicKey,
    repositories: { "octo/widgets": REPOSITORY_ID, "octo/secrets": PRIVATE_REPOSITORY_ID },
  });
  const started = await startMintingApi(
    {
      workers: 2,
    },
    { url: standIn.url, appId: APP_ID, privateKey: key.privateKey },
  );
  api = started.api;
  const mint = started.mint;
  minter = mint;
  [alice = "", bob = ""] = api.workerCredentials;
  consumerConnection = createRedisConnection(api.redisUrl, { name: "test-consumer", blocking: true });
  consumer = new Worker(REVIEW_QUEUE, null, { connection: consumerConnection, autorun: false });
});
afterAll(async () => {
  await consumer.close();
  consumerConnection.disconnect();
  await standIn.close();
  await api.close();
});

/** A review job enqueued the only way the api enqueues one: a signed webhook. */
async function enqueue(pullNumber: number, target: ApiHarness = api): Promise<string> {
  const body = pullRequestPayload({
    installationId: INSTALLATION_ID,
    repositoryId: REPOSITORY_ID,
    repository: "octo/widgets",
    number: pullNumber,
    head: headSha(pullNumber),
  });
  const res = await sendWebhook(`${target.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
  return (JSON.parse(res.body) as { jobId: string }).jobId;
}

/** Takes the next job as a worker does, with a lock token of our choosing. */
async function take(lockToken: string, from: Worker = consumer): Promise<Job> {
  const job: Job | undefined = await from.getNextJob(lockToken);
  if (job === undefined) throw new Error("no job to take");
  return job;
}

async function post(
  path: "claim" | "report",
  body: unknown,
  credential: string | null,
  target: ApiHarness = api,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${target.url}/internal/jobs/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(credential === null ? {} : { authorization: `Bearer ${credential}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const claim = (jobId: string, lockToken: string, credential: string | null = alice) => post("claim", { jobId, lockToken }, credential);
const reportOutcome = (jobId: string, lockToken: string, outcome: unknown, credential: string | null = alice) =>
  post("report", { jobId, lockToken, outcome }, credential);
const code = (res: { body: Record<string, unknown> }): unknown => (res.body.error as { code?: unknown } | undefined)?.code;

function line(credential: string): string {
  return registryLine(parseWorkerCredential(credential) ?? { name: "", secret: "" });
}

async function cleanQueue(): Promise<void> {
  await api.reviews.obliterate({ force: true });
}

describe("worker credentials", () => {
  it.each([
    ["no credential", null],
    ["a wrong secret", () => `${alice.slice(0, -1)}${alice.endsWith("x") ? "y" : "x"}`],
    ["a name the registry does not list", () => `mallory.${alice.split(".")[1] ?? ""}`],
    ["another worker's secret under this name", () => `worker-0.${bob.split(".")[1] ?? ""}`],
    ["no name", () => alice.split(".")[1] ?? ""],
  ] as const)("refuses %s with 401 before reading the body, and mints nothing", async (_name, credential) => {
    await cleanQueue();
    const jobId = await enqueue(1);
    const held = await take("lock-a");
    expect(held.id).toBe(jobId);
    const res = await claim(jobId, "lock-a", typeof credential === "function" ? credential() : credential);
    expect([res.status, code(res)]).toEqual([401, "UNAUTHENTICATED"]);
    expect(standIn.minted).toHaveLength(0);
  });

  it("refuses every worker while the registry file is malformed, and takes them back once it is fixed", async () => {
    await cleanQueue();
    const jobId = await enqueue(19);
    await take("lock-r");
    writeFileSync(api.registryFile, `${line(alice)}\nnot a registry line\n`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const credential of [alice, bob]) expect(code(await claim(jobId, "lock-r", credential))).toBe("UNAUTHENTICATED");
    expect(api.logs.some((entry) => entry.msg === "worker registry invalid: every worker refused")).toBe(true);
    // Negative control: the same credential is served again once the file is right.
    writeFileSync(api.registryFile, api.workerCredentials.map(line).join("\n"));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await claim(jobId, "lock-r", alice)).status).toBe(200);
  });

  it("revokes one worker by deleting its registry line, without a restart, while the other keeps working", async () => {
    await cleanQueue();
    const jobId = await enqueue(2);
    await take("lock-b");
    const registry = api.logs.length;
    const path = api.registryFile;
    writeFileSync(path, `${line(bob)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(code(await claim(jobId, "lock-b", alice))).toBe("UNAUTHENTICATED");
    const res = await claim(jobId, "lock-b", bob);
    expect(res.status).toBe(200);
    expect(api.logs.slice(registry).some((line) => line.msg === "worker registry loaded")).toBe(true);
    writeFileSync(path, api.workerCredentials.map(line).join("\n"));
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });
});

describe("claims: only a job the api created, active now, under the caller's own lock", () => {
  it("hands the holder the sealed job and a read token for that one repository (the negative control)", async () => {
    await cleanQueue();
    const jobId = await enqueue(3);
    await take("lock-c");
    const before = standIn.minted.length;
    const res = await claim(jobId, "lock-c");
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({
      repositoryId: REPOSITORY_ID,
      installationId: INSTALLATION_ID,
      repository: "octo/widgets",
      pullNumber: 3,
      headSha: headSha(3),
    });
    const minted = standIn.minted.slice(before);
    expect(minted).toHaveLength(1);
    expect(minted[0]).toMatchObject({
      token: res.body.token,
      repositoryIds: [REPOSITORY_ID],
      permissions: { contents: "read", pull_requests: "read", metadata: "read" },
    });
    expect(Date.parse(String(res.body.expiresAt))).toBeLessThanOrEqual(Date.now() + 900_000);
    expect(api.scrubber.scrub(String(res.body.token))).toBe("[REDACTED]");
    expect(JSON.stringify(api.logs)).not.toContain(String(res.body.token));
    expect(await api.github.getJob(`started.${jobId}`)).toBeDefined();
  });

  it("refuses a job a worker added to the queue itself (no seal): nothing minted for the private repository it names", async () => {
    await cleanQueue();
    // A well-formed job (copied from a real one), pointed at the private repository.
    const real = (await api.reviews.getJob(await enqueue(9)))?.data as Record<string, unknown>;
    await cleanQueue();
    const forged = { ...real, repositoryId: PRIVATE_REPOSITORY_ID, repository: "octo/secrets", deliveryId: "forged-1" };
    const cases = [
      ["the real job's seal on altered data", "review.9002.1.forged-1", forged],
      ["a seal made for another job id", "review.9002.1.forged-2", SEAL.seal("review.9001.3.elsewhere", { ...forged, mac: undefined })],
    ] as const;
    for (const [name, id, data] of cases) {
      await api.reviews.add("review", data, { ...REVIEW_JOB_OPTIONS, jobId: id });
      await take(`lock-${id}`);
      const before = standIn.minted.length;
      const res = await claim(id, `lock-${id}`);
      expect([name, res.status, code(res)]).toEqual([name, 403, "JOB_NOT_HELD"]);
      expect(standIn.minted.length).toBe(before);
      expect(await api.github.getJob(`started.${id}`)).toBeUndefined();
      expect(api.logs.some((line) => line.msg === "worker request refused" && line.jobId === id && line.forged === true)).toBe(true);
    }
  });

  it("refuses a sealed job whose data a worker altered (another repository)", async () => {
    await cleanQueue();
    const jobId = await enqueue(4);
    const held = await take("lock-d");
    await held.updateData({ ...(held.data as object), repositoryId: PRIVATE_REPOSITORY_ID, repository: "octo/secrets" });
    const before = standIn.minted.length;
    expect(code(await claim(jobId, "lock-d"))).toBe("JOB_NOT_HELD");
    expect(standIn.minted.length).toBe(before);
  });

  it.each([
    ["a lock token that is not the job's", "lock-wrong"],
    ["an empty-looking token", "x"],
  ])("refuses %s", async (_name, presented) => {
    await cleanQueue();
    const jobId = await enqueue(5);
    await take("lock-e");
    expect(code(await claim(jobId, presented))).toBe("JOB_NOT_HELD");
    // Negative control: the job's own lock.
    expect((await claim(jobId, "lock-e")).status).toBe(200);
  });

  it("refuses a job that is waiting, not active, even when a worker wrote a lock for it", async () => {
    await cleanQueue();
    const jobId = await enqueue(6);
    await api.redis.set(`bull:reviews:${jobId}:lock`, "planted-lock");
    const res = await claim(jobId, "planted-lock");
    expect([res.status, res.body.error]).toEqual([403, expect.objectContaining({ message: "the job is not active" })]);
  });

  it("refuses another worker presenting the lock token a worker claimed under (read from Redis)", async () => {
    await cleanQueue();
    const jobId = await enqueue(7);
    await take("lock-f");
    expect((await claim(jobId, "lock-f", alice)).status).toBe(200);
    const stolen = await api.redis.get(`bull:reviews:${jobId}:lock`);
    const before = standIn.minted.length;
    const res = await claim(jobId, stolen ?? "", bob);
    expect([res.status, res.body.error]).toEqual([403, expect.objectContaining({ message: "another worker claimed this job under this lock" })]);
    expect(standIn.minted.length).toBe(before);
    expect((await reportOutcome(jobId, stolen ?? "", { kind: "completed", report }, bob)).status).toBe(403);
  });

  it("refuses a finished job's lock token", async () => {
    await cleanQueue();
    const jobId = await enqueue(8);
    const held = await take("lock-g");
    expect((await claim(jobId, "lock-g")).status).toBe(200);
    await held.moveToCompleted("done", "lock-g", false);
    expect(code(await claim(jobId, "lock-g"))).toBe("JOB_NOT_HELD");
  });

  it("refuses a body that is not the strict schema, naming the field", async () => {
    const res = await post("claim", { jobId: "review.1.1.x", lockToken: "t", repositoryId: PRIVATE_REPOSITORY_ID }, alice);
    expect([res.status, code(res)]).toEqual([400, "REQUEST_INVALID"]);
  });

  it("refuses a body over the route's limit as BODY_TOO_LARGE and closes the connection; the same claim in bounds is read", async () => {
    const padded = { jobId: "review.1.1.x", lockToken: "t", padding: "x".repeat(8192) };
    const res = await fetch(`${api.url}/internal/jobs/claim`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${alice}` },
      body: JSON.stringify(padded),
    });
    expect([res.status, res.headers.get("connection"), code({ body: (await res.json()) as Record<string, unknown> })]).toEqual([
      413,
      "close",
      "BODY_TOO_LARGE",
    ]);
    // The control: under the limit the body is read and judged by the schema instead.
    const small = await post("claim", { jobId: "review.1.1.x", lockToken: "t", padding: "x" }, alice);
    expect([small.status, code(small)]).toEqual([400, "REQUEST_INVALID"]);
  });
});

describe("reports: published once, for the api's own record of the job", () => {
  it("publishes the holder's result for the sealed job's repository and SHA, revokes its token, releases its share", async () => {
    await cleanQueue();
    const jobId = await enqueue(10);
    await take("lock-h");
    const claimed = await claim(jobId, "lock-h");
    const token = String(claimed.body.token);
    const res = await reportOutcome(jobId, "lock-h", { kind: "completed", report });
    expect(res).toEqual({ status: 200, body: { status: "recorded" } });
    const task = await api.github.getJob(`completed.${jobId}`);
    expect(task?.data).toMatchObject({ kind: "completed", review: { repositoryId: REPOSITORY_ID, headSha: headSha(10) } });
    expect(standIn.state.revoked).toContain(token);
    expect(standIn.state.tokens.has(token)).toBe(false);
    expect(await api.redis.sismember(`reviewbot:installation:${INSTALLATION_ID}:jobs`, jobId)).toBe(0);
    // After the job ended: no new token for it.
    expect(code(await claim(jobId, "lock-h"))).toBe("JOB_NOT_HELD");
  });

  it("refuses repository fields smuggled into a report (the schema is strict)", async () => {
    await cleanQueue();
    const jobId = await enqueue(11);
    await take("lock-i");
    const res = await post(
      "report",
      { jobId, lockToken: "lock-i", outcome: { kind: "completed", report }, review: { repositoryId: PRIVATE_REPOSITORY_ID } },
      alice,
    );
    expect([res.status, code(res)]).toEqual([400, "REQUEST_INVALID"]);
    expect(await api.github.getJob(`completed.${jobId}`)).toBeUndefined();
  });

  it("takes the same report twice as a duplicate, and refuses a different second outcome", async () => {
    await cleanQueue();
    const jobId = await enqueue(12);
    await take("lock-j");
    expect((await reportOutcome(jobId, "lock-j", { kind: "completed", report })).body).toEqual({ status: "recorded" });
    expect((await reportOutcome(jobId, "lock-j", { kind: "completed", report })).body).toEqual({ status: "duplicate" });
    const other = await reportOutcome(jobId, "lock-j", { kind: "completed", report: { ...report, durationMs: 6 } });
    expect([other.status, code(other)]).toEqual([409, "OUTCOME_RECORDED"]);
    const failure = await reportOutcome(jobId, "lock-j", { kind: "failed", code: "INTERNAL", reason: "x" });
    expect(code(failure)).toBe("OUTCOME_RECORDED");
    expect(await api.github.getJob(`failed.${jobId}`)).toBeUndefined();
  });

  it("refuses an answer as the outcome of a review (the sealed job says what it is), and records the review's report", async () => {
    await cleanQueue();
    const jobId = await enqueue(14);
    await take("lock-l");
    const forged = await reportOutcome(jobId, "lock-l", { kind: "answered", answer: "Approved! Merge it." });
    expect([forged.status, code(forged)]).toEqual([400, "REQUEST_INVALID"]);
    expect(await api.github.getJob(`answer.${jobId}`)).toBeUndefined();
    expect((await reportOutcome(jobId, "lock-l", { kind: "completed", report })).body).toEqual({ status: "recorded" });
  });

  it("refuses a failure code outside the catalogue", async () => {
    await cleanQueue();
    const jobId = await enqueue(13);
    await take("lock-k");
    const res = await reportOutcome(jobId, "lock-k", { kind: "failed", code: "PWNED", reason: "x" });
    expect([res.status, code(res)]).toEqual([400, "REQUEST_INVALID"]);
  });
});

describe("tokens die with their job", () => {
  it("the sweeper revokes a token at its deadline (REVIEWBOT_JOB_TOKEN_TTL_MS) even while its job still runs", async () => {
    const short = await startApi({
      workers: 1,
      tokens: {
        mint: (installationId, repositoryId) => minter(installationId, repositoryId),
        revoke: (token) => revokeRepositoryToken(standIn.url, token),
        ttlMs: 1500,
      },
    });
    const connection = createRedisConnection(short.redisUrl, { name: "test-consumer-short", blocking: true });
    const holder = new Worker(REVIEW_QUEUE, null, { connection, autorun: false, lockDuration: 60_000 });
    const vault = short.vault;
    if (vault === null) throw new Error("no vault");
    const sweeper = startTokenSweeper({
      vault,
      redis: short.redis,
      keys: DEFAULT_KEYSPACE,
      reviews: short.reviews,
      logger: createLogger({ level: "silent", scrubber: short.scrubber }),
      intervalMs: 3_600_000,
    });
    try {
      const jobId = await enqueue(23, short);
      await take("lock-t", holder);
      const claimed = await post("claim", { jobId, lockToken: "lock-t" }, short.workerCredentials[0] ?? "", short);
      const token = String(claimed.body.token);
      expect(Date.parse(String(claimed.body.expiresAt))).toBeLessThanOrEqual(Date.now() + 1500);
      // Negative control: before its deadline, with its job active under the same lock, it lives.
      expect((await sweeper.sweep()).revoked).toBe(0);
      expect(standIn.state.tokens.has(token)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect(await short.redis.get(`bull:reviews:${jobId}:lock`)).toBe("lock-t");
      expect((await sweeper.sweep()).revoked).toBe(1);
      expect(standIn.state.revoked).toContain(token);
      expect(standIn.state.tokens.has(token)).toBe(false);
    } finally {
      sweeper.close();
      await holder.close();
      connection.disconnect();
      await short.close();
    }
  });

  it("the sweeper revokes the token of a job whose lock moved on (a stall, a retry, a crash), and only that one", async () => {
    await cleanQueue();
    const first = await enqueue(20);
    const held = await take("lock-l");
    const stale = String((await claim(first, "lock-l")).body.token);
    const second = await enqueue(21);
    await take("lock-m");
    const live = String((await claim(second, "lock-m")).body.token);
    // The first job goes back to the queue (as a stalled job is moved back to wait): its lock is gone.
    await held.moveToDelayed(Date.now() + 60_000, "lock-l");
    const vault = api.vault;
    if (vault === null) throw new Error("no vault");
    const sweeper = startTokenSweeper({
      vault,
      redis: api.redis,
      keys: DEFAULT_KEYSPACE,
      reviews: api.reviews,
      logger: createLogger({ level: "silent", scrubber: api.scrubber }),
      intervalMs: 3_600_000,
    });
    try {
      // Earlier cases' jobs were obliterated with their tokens live: those go too.
      expect((await sweeper.sweep()).revoked).toBeGreaterThanOrEqual(1);
    } finally {
      sweeper.close();
    }
    expect(standIn.state.revoked).toContain(stale);
    expect(standIn.state.revoked).not.toContain(live);
    expect(standIn.state.tokens.has(live)).toBe(true);
  });

  it("a new attempt under a new lock revokes what the previous attempt held", async () => {
    await cleanQueue();
    const jobId = await enqueue(22);
    const held = await take("lock-n");
    const old = String((await claim(jobId, "lock-n")).body.token);
    await held.moveToDelayed(Date.now(), "lock-n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await take("lock-o");
    const res = await claim(jobId, "lock-o", bob);
    expect(res.status).toBe(200);
    expect(standIn.state.revoked).toContain(old);
    expect(standIn.state.tokens.has(String(res.body.token))).toBe(true);
  });
});

describe("failures of the api's own", () => {
  it("answers an error that is not in the catalogue 500 INTERNAL without its message, logged once with it", async () => {
    const broken = await startApi({
      workers: 1,
      tokens: { mint: () => Promise.reject(new Error("minting failed at /srv/app-key.pem")), revoke: () => Promise.resolve() },
    });
    const connection = createRedisConnection(broken.redisUrl, { name: "test-consumer-broken", blocking: true });
    const holder = new Worker(REVIEW_QUEUE, null, { connection, autorun: false });
    try {
      const jobId = await enqueue(31, broken);
      await take("lock-b", holder);
      const res = await post("claim", { jobId, lockToken: "lock-b" }, broken.workerCredentials[0] ?? "", broken);
      expect(res).toEqual({ status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } });
      const failed = broken.logs.filter((entry) => entry.jobId === jobId && entry.code === "INTERNAL");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ msg: "worker request failed", route: "claim", err: { message: "minting failed at /srv/app-key.pem" } });
    } finally {
      await holder.close();
      connection.disconnect();
      await broken.close();
    }
  });

  it("answers a path it does not serve 404 NOT_FOUND in the one error body", async () => {
    const res = await fetch(`${api.url}/internal/jobs/claims`, { method: "POST" });
    expect([res.status, await res.json()]).toEqual([404, { error: { code: "NOT_FOUND", message: "no such route" } }]);
  });
});
