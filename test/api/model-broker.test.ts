import { execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelBudget } from "@reviewbot/api/broker/model-budget";
import { fetchAllowlisted } from "@reviewbot/llm/fetch-allowlisted";
import type { LlmProtocol } from "@reviewbot/llm/llm-settings";
import { reply, startModelStandIn, type ModelStandIn } from "@reviewbot/llm/testing/model-stand-in";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { REVIEW_JOB_OPTIONS } from "@reviewbot/queue/review-queue";
import { MAX_AI_CACHE_BYTES } from "@reviewbot/contracts/worker-protocol";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness, type HarnessModel } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The api's model broker attacked by a worker host: a real api on a real port, real Redis, the
// real model client against a stand-in model server that records every request. The worker holds
// no model key; what it may spend, where a fetch may go and which cache entries it reaches are
// decided by the api from the job it sealed.

const KEY = `sk-reviewbot-${randomBytes(16).toString("hex")}`;
const MODEL = "stand-in-large";
const CAP = 256;
const JOB_TOKENS = 1000;
const DAILY_TOKENS = 1500;
const INSTALLATION_CALLS = 3;
const REPOSITORY_ID = 9001;
const DOCS_HOST = "docs.test";
/** The page server's address: a random 127/8 address, port 443 (the fetcher dials only 443: needs root or CAP_NET_BIND_SERVICE). */
const DOCS_IP = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

/** One api with the broker on, its own Redis, and a BullMQ consumer that takes jobs as a worker does. */
interface Broker {
  readonly api: ApiHarness;
  readonly connection: Redis;
  readonly consumer: Worker;
}

interface Started {
  readonly jobId: string;
  readonly lockToken: string;
  readonly job: Job;
  /** The claim's answer; null for a job taken but not claimed. */
  readonly claim: Record<string, unknown> | null;
}

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

let standIn: ModelStandIn;
let openai: Broker;
/** The anthropic protocol, and no fetch hosts. */
let anthropic: Broker;
let alice: string;
let bob: string;
let certDir: string;
let cert: Buffer;
let docs: Server;
/** What the page server was asked for, and whether it finished answering (null while it has not closed). */
const served: { path: string; finished: boolean | null }[] = [];
let pullNumber = 100;

async function startBroker(protocol: LlmProtocol, fetcher: HarnessModel["fetcher"]): Promise<Broker> {
  const api = await startApi({
    workers: 2,
    installationConcurrency: 100,
    model: {
      protocol,
      baseUrl: standIn.url(protocol),
      apiKey: KEY,
      models: [MODEL, "stand-in-small"],
      maxTokens: CAP,
      budgets: {
        jobTokens: JOB_TOKENS,
        installationDailyTokens: DAILY_TOKENS,
        jobMicrodollars: null,
        installationDailyMicrodollars: null,
        installationCalls: INSTALLATION_CALLS,
      },
      attempts: 3,
      backoffMs: 10,
      fetcher,
    },
  });
  const connection = createRedisConnection(api.redisUrl, { name: "test-consumer", blocking: true });
  // Jobs are taken by hand (no lock renewal): a long lock outlives every case.
  const consumer = new Worker(REVIEW_QUEUE, null, { connection, autorun: false, lockDuration: 600_000 });
  return { api, connection, consumer };
}

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), "reviewbot-broker-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      `/CN=${DOCS_HOST}`,
      "-addext",
      `subjectAltName=DNS:${DOCS_HOST}`,
      "-days",
      "1",
      "-keyout",
      join(certDir, "key.pem"),
      "-out",
      join(certDir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  cert = readFileSync(join(certDir, "cert.pem"));
  docs = createHttpsServer({ key: readFileSync(join(certDir, "key.pem")), cert }, (req, res) => {
    const entry = { path: req.url ?? "", finished: null as boolean | null };
    served.push(entry);
    res.on("close", () => {
      entry.finished = res.writableFinished;
    });
    const answer = () => res.writeHead(200, { "content-type": "text/plain" }).end(`page ${entry.path} of ${DOCS_HOST}`);
    if (entry.path === "/slow") setTimeout(answer, 1500);
    else answer();
  });
  await new Promise<void>((resolve, reject) => {
    docs.once("error", reject).listen(443, DOCS_IP, resolve);
  });
  standIn = await startModelStandIn({ apiKey: KEY });
  openai = await startBroker("openai", (url, signal) =>
    fetchAllowlisted(url, {
      hosts: [DOCS_HOST],
      lookup: () => Promise.resolve([{ address: DOCS_IP, family: 4 }]),
      isAllowedAddress: (ip) => ip === DOCS_IP,
      ca: cert,
      signal,
    }),
  );
  anthropic = await startBroker("anthropic", null);
  [alice = "", bob = ""] = openai.api.workerCredentials;
});

afterAll(async () => {
  for (const broker of [openai, anthropic]) {
    await broker.consumer.close();
    broker.connection.disconnect();
    await broker.api.close();
  }
  await standIn.close();
  docs.closeAllConnections();
  await new Promise((resolve) => docs.close(resolve));
  rmSync(certDir, { recursive: true, force: true });
});

async function post(
  on: Broker,
  path: "claim" | "report" | "model" | "fetch" | "ai-cache",
  body: unknown,
  credential: string | null = on.api.workerCredentials[0] ?? "",
): Promise<Answer> {
  const res = await fetch(`${on.api.url}/internal/jobs/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(credential === null ? {} : { authorization: `Bearer ${credential}` }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const refusal = (res: Answer): { status: number; code: unknown; message: unknown } => {
  const error = (res.body.error ?? {}) as { code?: unknown; message?: unknown };
  return { status: res.status, code: error.code, message: error.message };
};

/** A review job enqueued the only way the api enqueues one (a signed webhook), taken under a fresh lock, and claimed unless `claim` is false. */
async function startJob(on: Broker, options: { installationId?: number; private?: boolean; claim?: boolean } = {}): Promise<Started> {
  const number = ++pullNumber;
  const payload = pullRequestPayload({
    installationId: options.installationId ?? 77,
    repositoryId: REPOSITORY_ID,
    repository: "octo/widgets",
    number,
    head: headSha(number),
  });
  const body = { ...payload, repository: { ...(payload.repository as object), private: options.private ?? false } };
  const sent = await sendWebhook(`${on.api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
  const { jobId } = JSON.parse(sent.body) as { jobId: string };
  return take(on, jobId, options.claim ?? true);
}

/** Takes the next job (which must be `jobId`) under a new lock token, as a worker does. */
async function take(on: Broker, jobId: string, claim: boolean): Promise<Started> {
  const lockToken = `lock-${randomUUID()}`;
  const job: Job | undefined = await on.consumer.getNextJob(lockToken);
  expect(job?.id).toBe(jobId);
  if (job === undefined) throw new Error("no job to take");
  if (!claim) return { jobId, lockToken, job, claim: null };
  const claimed = await post(on, "claim", { jobId, lockToken });
  expect(claimed.status).toBe(200);
  return { jobId, lockToken, job, claim: claimed.body };
}

/** A new attempt of the same job (as after a stall): back to the queue, taken and claimed under a new lock. */
async function retry(on: Broker, started: Started): Promise<Started> {
  await started.job.moveToDelayed(Date.now(), started.lockToken);
  await sleep(50);
  return take(on, started.jobId, true);
}

function chat(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: MODEL,
    system: "You review code.",
    messages: [{ role: "user", content: "Review this change." }],
    tools: [{ name: "read_file", description: "Reads a file of the PR.", parameters: { type: "object", properties: { path: { type: "string" } } } }],
    toolChoice: "auto",
    maxTokens: 128,
    ...overrides,
  };
}

const callModel = (on: Broker, job: Started, request: unknown = chat(), credential?: string | null) =>
  post(on, "model", { jobId: job.jobId, lockToken: job.lockToken, request }, credential);

/** Runs `act` and checks that nothing reached the model server meanwhile. */
async function untouched<T>(act: () => Promise<T>): Promise<T> {
  const before = standIn.requests.length;
  const result = await act();
  expect(standIn.requests.length).toBe(before);
  return result;
}

/** Every Redis key whose name or value (any type) contains `needle`. */
async function redisContaining(redis: Redis, needle: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of redis.scanStream({ count: 1000 }) as AsyncIterable<string[]>) {
    for (const key of keys) {
      if (key.includes(needle) || (await redisValue(redis, key)).includes(needle)) found.push(key);
    }
  }
  return found;
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  if (type === "string") return (await redis.get(key)) ?? "";
  if (type === "hash") return JSON.stringify(await redis.hgetall(key));
  if (type === "list") return JSON.stringify(await redis.lrange(key, 0, -1));
  if (type === "set") return JSON.stringify(await redis.smembers(key));
  if (type === "zset") return JSON.stringify(await redis.zrange(key, 0, -1));
  if (type === "stream") return JSON.stringify(await redis.xrange(key, "-", "+"));
  if (type === "none") return "";
  throw new Error(`a key of type ${type}: ${key}`);
}

const budgetKey = (jobId: string) => `reviewbot:llm:job:${jobId}`;
const dayKey = (installationId: number) => `reviewbot:llm:installation:${installationId}:${new Date().toISOString().slice(0, 10)}`;
const charged = async (key: string) => Number(await openai.api.redis.hget(key, "tokens"));

/** A call's worst case as the broker reserves it: the input at four characters a token, and the whole output it was allowed. */
const worstOf = (request: Record<string, unknown>) => Math.ceil(JSON.stringify(request).length / 4) + Number(request.maxTokens);

describe("the key stays with the api", () => {
  it.each(["openai", "anthropic"] as const)("%s: a claimed job gets an answer; the key travels only in the upstream auth header", async (protocol) => {
    const on = protocol === "openai" ? openai : anthropic;
    standIn.script([reply.text("looks fine", { usage: { input: 40, output: 7 } })]);
    const before = standIn.requests.length;
    const job = await startJob(on);
    const res = await callModel(on, job);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      response: { model: MODEL, content: "looks fine", toolCalls: [], stop: "end", usage: { inputTokens: 40, outputTokens: 7 } },
      budget: { usedTokens: 47, maxTokens: JOB_TOKENS },
    });
    const sent = standIn.requests.slice(before);
    expect(sent.map((request) => request.protocol)).toEqual([protocol]);
    const header = protocol === "openai" ? "authorization" : "x-api-key";
    expect(sent[0]?.headers[header]).toBe(protocol === "openai" ? `Bearer ${KEY}` : KEY);
    const raw = sent[0]?.rawHeaders ?? [];
    const carrying = raw.flatMap((value, index) => (index % 2 === 1 && value.includes(KEY) ? [raw[index - 1]?.toLowerCase()] : []));
    expect(carrying).toEqual([header]);
    expect(standIn.requests.filter((request) => request.bodyText.includes(KEY))).toEqual([]);
    expect(res.text).not.toContain(KEY);
    expect(JSON.stringify(on.api.logs)).not.toContain(KEY);
    expect(await redisContaining(on.api.redis, KEY)).toEqual([]);
  });
});

describe("only the worker that claimed a live job may call the model", () => {
  it("refuses a missing or wrong credential (401); the claimed worker's call is answered", async () => {
    const job = await startJob(openai);
    const wrong = `${alice.slice(0, -1)}${alice.endsWith("x") ? "y" : "x"}`;
    for (const credential of [null, wrong, `mallory.${alice.split(".")[1] ?? ""}`]) {
      const res = await untouched(() => callModel(openai, job, chat(), credential));
      expect(refusal(res)).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
    }
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, job)).status).toBe(200);
  });

  it("refuses another registered worker presenting the same job and lock", async () => {
    const job = await startJob(openai);
    const res = await untouched(() => callModel(openai, job, chat(), bob));
    expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "another worker claimed this job under this lock" });
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, job, chat(), alice)).status).toBe(200);
  });

  it("refuses a stale lock (the job's previous attempt) and a forged one; the current lock is answered", async () => {
    const first = await startJob(openai);
    const second = await retry(openai, first);
    for (const lockToken of [first.lockToken, "lock-forged"]) {
      const res = await untouched(() => callModel(openai, { ...second, lockToken }));
      expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "the lock token is not the job's current lock" });
    }
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, second)).status).toBe(200);
  });

  it("refuses a job id that does not exist", async () => {
    const res = await untouched(() => callModel(openai, { jobId: `review.${REPOSITORY_ID}.1.nope`, lockToken: "lock-x" } as Started));
    expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "no review job has this id" });
  });

  it("refuses a job written straight to Redis (unsealed), taken under the attacker's lock, even with a claim record planted", async () => {
    const real = await startJob(openai);
    // The real job's data under another PR, its seal dropped (undefined is not stored).
    const unsealed = { ...(real.job.data as Record<string, unknown>), mac: undefined, pullNumber: 999 };
    const forgedId = `review.${REPOSITORY_ID}.999.forged-${randomUUID()}`;
    await openai.api.reviews.add("review", unsealed, { ...REVIEW_JOB_OPTIONS, jobId: forgedId });
    const forged = await take(openai, forgedId, false);
    expect(refusal(await post(openai, "claim", { jobId: forgedId, lockToken: forged.lockToken }))).toMatchObject({ status: 403, code: "JOB_NOT_HELD" });
    await openai.api.redis.hset(`reviewbot:broker:claim:${forgedId}`, "lock", forged.lockToken, "worker", "worker-0");
    const res = await untouched(() => callModel(openai, forged));
    expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "the job was not created by the api, or was altered" });
    expect(
      openai.api.logs.some((line) => line.msg === "worker request refused" && line.route === "model" && line.jobId === forgedId && line.forged === true),
    ).toBe(true);
  });

  it("refuses a call before the job is claimed; the same job once claimed is answered", async () => {
    const job = await startJob(openai, { claim: false });
    const res = await untouched(() => callModel(openai, job));
    expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "the job was not claimed under this lock: claim it first" });
    expect((await post(openai, "claim", { jobId: job.jobId, lockToken: job.lockToken })).status).toBe(200);
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, job)).status).toBe(200);
  });

  it("refuses a call after the job's outcome was reported (a call before it is answered)", async () => {
    const job = await startJob(openai);
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, job)).status).toBe(200);
    expect((await post(openai, "report", { jobId: job.jobId, lockToken: job.lockToken, outcome: { kind: "skipped" } })).status).toBe(200);
    const res = await untouched(() => callModel(openai, job));
    expect(refusal(res)).toEqual({ status: 403, code: "JOB_NOT_HELD", message: "the job has ended" });
  });

  it.each(["fetch", "ai-cache"] as const)("%s: refuses another worker, an unclaimed job and an ended one", async (path) => {
    const body = (job: Started) => ({
      jobId: job.jobId,
      lockToken: job.lockToken,
      ...(path === "fetch" ? { url: `https://${DOCS_HOST}/page` } : { op: "get", key: "a".repeat(64) }),
    });
    const claimed = await startJob(openai);
    expect(refusal(await post(openai, path, body(claimed), bob))).toMatchObject({ status: 403, code: "JOB_NOT_HELD" });
    const unclaimed = await startJob(openai, { claim: false });
    expect(refusal(await post(openai, path, body(unclaimed)))).toMatchObject({ status: 403, code: "JOB_NOT_HELD" });
    // The negative control: the claimer is served.
    expect((await post(openai, path, body(claimed))).status).toBe(200);
    await post(openai, "report", { jobId: claimed.jobId, lockToken: claimed.lockToken, outcome: { kind: "skipped" } });
    expect(refusal(await post(openai, path, body(claimed)))).toMatchObject({ status: 403, code: "JOB_NOT_HELD", message: "the job has ended" });
  });
});

describe("the operator's rules over a worker's request", () => {
  const field = (res: Answer): string => String(refusal(res).message);

  it.each([
    ["a model not in the allowlist", { request: chat({ model: "gpt-expensive" }) }, 403, "POLICY_DENIED", /gpt-expensive/],
    [
      "the same tool offered twice",
      { request: chat({ tools: [...(chat().tools as unknown[]), ...(chat().tools as unknown[])] }) },
      403,
      "POLICY_DENIED",
      /read_file is offered twice/,
    ],
    ["base_url beside the request", { request: chat(), base_url: "http://evil.test/v1" }, 400, "REQUEST_INVALID", /^\(root\).*base_url/],
    ["temperature in the request", { request: chat({ temperature: 2 }) }, 400, "REQUEST_INVALID", /^request: .*temperature/],
    [
      "base_url inside a message",
      { request: chat({ messages: [{ role: "user", content: "hi", base_url: "http://evil.test" }] }) },
      400,
      "REQUEST_INVALID",
      /^request\.messages\.0: .*base_url/,
    ],
    [
      "an extra field in a tool",
      { request: chat({ tools: [{ ...(chat().tools as object[])[0], strict: false }] }) },
      400,
      "REQUEST_INVALID",
      /^request\.tools\.0: .*strict/,
    ],
    [
      "a tool name with spaces",
      { request: chat({ tools: [{ ...(chat().tools as object[])[0], name: "read file" }] }) },
      400,
      "REQUEST_INVALID",
      /^request\.tools\.0\.name: /,
    ],
  ] as const)("refuses %s before the model is called", async (_name, extra, status, code, message) => {
    const job = await startJob(openai);
    const res = await untouched(() => post(openai, "model", { jobId: job.jobId, lockToken: job.lockToken, ...extra }));
    expect(refusal(res)).toMatchObject({ status, code });
    expect(field(res)).toMatch(message);
    // The negative control: the same job's valid request is answered.
    standIn.script([reply.text("ok", { usage: { input: 1, output: 1 } })]);
    expect((await callModel(openai, job)).status).toBe(200);
  });

  it("clamps maxTokens to the operator's cap (a request under it goes as asked)", async () => {
    const job = await startJob(openai);
    standIn.script([reply.text("a", { usage: { input: 1, output: 1 } }), reply.text("b", { usage: { input: 1, output: 1 } })]);
    const before = standIn.requests.length;
    expect((await callModel(openai, job, chat({ maxTokens: 100_000 }))).status).toBe(200);
    expect((await callModel(openai, job, chat({ maxTokens: 100 }))).status).toBe(200);
    expect(standIn.requests.slice(before).map((request) => (request.json as { max_tokens?: unknown }).max_tokens)).toEqual([CAP, 100]);
  });
});

describe("budgets", () => {
  it("stops a job at its token cap, having clamped its last call to what was left; another job of the installation goes on", async () => {
    const job = await startJob(openai, { installationId: 501 });
    standIn.script([reply.text("one", { usage: { input: 800, output: 100 } }), reply.text("two", { usage: { input: 90, output: 20 } })]);
    const before = standIn.requests.length;
    expect((await callModel(openai, job)).body.budget).toEqual({ usedTokens: 900, maxTokens: JOB_TOKENS });
    expect((await callModel(openai, job)).body.budget).toEqual({ usedTokens: 1010, maxTokens: JOB_TOKENS });
    expect(standIn.requests.slice(before).map((request) => (request.json as { max_tokens?: unknown }).max_tokens)).toEqual([128, 100]);
    const res = await untouched(() => callModel(openai, job));
    expect(refusal(res)).toEqual({ status: 429, code: "LLM_BUDGET_EXCEEDED", message: `the job's token budget (${JOB_TOKENS} tokens) is used up` });
    standIn.script([reply.text("other", { usage: { input: 10, output: 5 } })]);
    const other = await callModel(openai, await startJob(openai, { installationId: 501 }));
    expect(other.body.budget).toEqual({ usedTokens: 15, maxTokens: JOB_TOKENS });
  });

  it("stops an installation at its daily cap across two jobs; another installation's job goes on", async () => {
    const first = await startJob(openai, { installationId: 502 });
    const second = await startJob(openai, { installationId: 502 });
    standIn.script([reply.text("one", { usage: { input: 800, output: 99 } }), reply.text("two", { usage: { input: 600, output: 50 } })]);
    expect((await callModel(openai, first)).body.budget).toEqual({ usedTokens: 899, maxTokens: JOB_TOKENS });
    expect((await callModel(openai, second)).body.budget).toEqual({ usedTokens: 650, maxTokens: JOB_TOKENS });
    // Both jobs are under their own cap: the installation's refuses them.
    for (const job of [first, second, await startJob(openai, { installationId: 502 })]) {
      const res = await untouched(() => callModel(openai, job));
      expect(refusal(res)).toEqual({
        status: 429,
        code: "LLM_BUDGET_EXCEEDED",
        message: `the installation's daily token budget (${DAILY_TOKENS} tokens) is used up`,
      });
    }
    standIn.script([reply.text("other", { usage: { input: 10, output: 5 } })]);
    expect((await callModel(openai, await startJob(openai, { installationId: 503 }))).body.budget).toEqual({ usedTokens: 15, maxTokens: JOB_TOKENS });
    // What Prometheus sees per installation (the alerts' ReviewbotModelBudgetExhausted, the dashboard's tokens).
    const metrics = await openai.api.metrics.registry.metrics();
    expect(metrics).toContain('reviewbot_model_tokens_total{installation="502",kind="input"} 1400');
    expect(metrics).toContain('reviewbot_model_tokens_total{installation="502",kind="output"} 149');
    expect(metrics).toContain('reviewbot_model_tokens_total{installation="503",kind="output"} 5');
    expect(metrics).toContain('reviewbot_model_budget_refusals_total{installation="502"} 3');
    expect(metrics).not.toContain('reviewbot_model_budget_refusals_total{installation="503"}');
  });
});

describe("budgets under concurrency", () => {
  /** A request whose worst case (about 530 tokens) covers the usage the stand-in reports (500). */
  const big = chat({ messages: [{ role: "user", content: "x".repeat(1600) }] });
  const used = { input: 400, output: 100 };

  /** Sends `count` calls at once, each for its job; the answers in order. */
  const burst = (jobs: readonly Started[], request: Record<string, unknown>) => Promise.all(jobs.map((job) => callModel(openai, job, request)));
  const codes = (answers: readonly Answer[]) => answers.map((res) => (res.status === 200 ? 200 : refusal(res).code));

  it("40 calls of one job at once: one goes upstream, 39 are refused busy (429, Retry-After); in waves to the cap, the job and its installation are charged within their caps plus one call's worst case", async () => {
    const installationId = 601;
    const job = await startJob(openai, { installationId });
    standIn.script(() => reply.text("slow", { delayMs: 1000, usage: used }));
    let upstream = 0;
    for (let wave = 0; wave < 10; wave++) {
      const before = standIn.requests.length;
      const answers = await burst(
        Array.from({ length: 40 }, () => job),
        big,
      );
      const admitted = standIn.requests.length - before;
      upstream += admitted;
      if (codes(answers).every((code) => code === "LLM_BUDGET_EXCEEDED")) break;
      // Never two calls of the job upstream at once: the others were refused, not queued.
      expect(admitted).toBe(1);
      expect(codes(answers).filter((code) => code === 200)).toHaveLength(1);
      const busy = answers.filter((res) => refusal(res).code === "LLM_BUSY");
      expect(busy).toHaveLength(39);
      expect(refusal(busy[0] as Answer)).toEqual({ status: 429, code: "LLM_BUSY", message: "the job already has a model call in flight: one at a time" });
    }
    // Without the reservation, 40 calls × 500 tokens = 20,000 against a cap of 1,000.
    expect(upstream).toBe(2);
    expect(await charged(budgetKey(job.jobId))).toBe(2 * (used.input + used.output));
    expect(await charged(budgetKey(job.jobId))).toBeLessThanOrEqual(JOB_TOKENS + worstOf(big));
    expect(await charged(dayKey(installationId))).toBeLessThanOrEqual(DAILY_TOKENS + worstOf(big));
    expect(await openai.api.redis.exists(`reviewbot:llm:call:job:${job.jobId}`)).toBe(0);
  });

  it("answers a busy call with Retry-After, and the same call once the first is settled is answered", async () => {
    const job = await startJob(openai, { installationId: 602 });
    standIn.script([reply.text("first", { delayMs: 1000, usage: { input: 1, output: 1 } }), reply.text("second", { usage: { input: 1, output: 1 } })]);
    const before = standIn.requests.length;
    const first = callModel(openai, job);
    await expect.poll(() => standIn.requests.length > before, { timeout: 5000 }).toBe(true);
    const res = await fetch(`${openai.api.url}/internal/jobs/model`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${alice}` },
      body: JSON.stringify({ jobId: job.jobId, lockToken: job.lockToken, request: chat() }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    // A busy call is the limit working, not a worker misbehaving: news, not a warning.
    expect(openai.api.logs.filter((line) => line.jobId === job.jobId && line.code === "LLM_BUSY").map((line) => [line.level, line.msg])).toEqual([
      [30, "model call deferred: busy"],
    ]);
    expect((await first).status).toBe(200);
    expect((await callModel(openai, job)).status).toBe(200);
  });

  it("40 jobs of one installation at once: at most its limit of calls go upstream, the rest are refused busy; in waves to the daily cap, it is charged within the cap plus one call's worst case", async () => {
    const installationId = 603;
    const jobs: Started[] = [];
    for (let index = 0; index < 40; index++) jobs.push(await startJob(openai, { installationId }));
    // Small calls (a worst case of about 230 tokens), so that the limit, not the cap, stops the first waves.
    standIn.script(() => reply.text("slow", { delayMs: 1000, usage: { input: 60, output: 40 } }));
    const answered: number[] = [];
    for (let wave = 0; wave < 20; wave++) {
      const before = standIn.requests.length;
      const answers = await burst(jobs, chat());
      expect(standIn.requests.length - before).toBeLessThanOrEqual(INSTALLATION_CALLS);
      answered.push(codes(answers).filter((code) => code === 200).length);
      if (codes(answers).every((code) => code === "LLM_BUDGET_EXCEEDED")) break;
      expect(codes(answers).filter((code) => code === "LLM_BUSY").length).toBeGreaterThanOrEqual(40 - INSTALLATION_CALLS);
      if (wave === 0) {
        expect(answered[0]).toBe(INSTALLATION_CALLS);
        expect(answers.map((res) => refusal(res).message)).toContain(
          `installation ${installationId} already has ${INSTALLATION_CALLS} model call(s) in flight, its limit`,
        );
      }
    }
    expect(answered.at(-1)).toBe(0);
    const total = await charged(dayKey(installationId));
    expect(total).toBe(answered.reduce((sum, count) => sum + count, 0) * 100);
    expect(total).toBeGreaterThanOrEqual(DAILY_TOKENS);
    expect(total).toBeLessThanOrEqual(DAILY_TOKENS + worstOf(chat()));
    expect(await openai.api.redis.zcard(`reviewbot:llm:calls:installation:${installationId}`)).toBe(0);
  });

  it("the negative control: one honest job's calls in sequence run to the cap, each charged what it used, the reservation returned", async () => {
    const installationId = 604;
    const job = await startJob(openai, { installationId });
    standIn.script(() => reply.text("ok", { usage: { input: 150, output: 50 } }));
    for (let call = 1; call <= 5; call++) {
      const res = await callModel(openai, job, big);
      expect(res.body.budget).toEqual({ usedTokens: 200 * call, maxTokens: JOB_TOKENS });
      // Each call reserved about 530 tokens while in flight; settled, only its 200 remain.
      expect(await charged(budgetKey(job.jobId))).toBe(200 * call);
      expect(await charged(dayKey(installationId))).toBe(200 * call);
    }
    const res = await untouched(() => callModel(openai, job, big));
    expect(refusal(res)).toEqual({ status: 429, code: "LLM_BUDGET_EXCEEDED", message: `the job's token budget (${JOB_TOKENS} tokens) is used up` });
  });

  it("an api that died mid-call holds nothing past its marks' lifetime: the job and its installation are busy until then, the call's worst case stays charged", async () => {
    const installationId = 605;
    const job = await startJob(openai, { installationId });
    const others = [await startJob(openai, { installationId }), await startJob(openai, { installationId })];
    // What an api leaves when it dies after reserving: marks it never removes, with a short lifetime here.
    const dead = new ModelBudget(openai.api.redis, DEFAULT_KEYSPACE, {
      jobTokens: JOB_TOKENS,
      installationDailyTokens: DAILY_TOKENS,
      jobMicrodollars: null,
      installationDailyMicrodollars: null,
      installationCalls: INSTALLATION_CALLS,
      callTtlMs: 1500,
    });
    for (const held of [job, ...others]) await dead.reserve(held.jobId, installationId, { tokens: 100, microdollars: 0 });
    const fresh = await startJob(openai, { installationId });
    expect(refusal(await untouched(() => callModel(openai, job)))).toMatchObject({ status: 429, code: "LLM_BUSY" });
    expect(refusal(await untouched(() => callModel(openai, fresh)))).toMatchObject({ status: 429, code: "LLM_BUSY" });
    await sleep(1600);
    standIn.script([reply.text("a", { usage: { input: 10, output: 5 } }), reply.text("b", { usage: { input: 10, output: 5 } })]);
    expect((await callModel(openai, job)).body.budget).toEqual({ usedTokens: 115, maxTokens: JOB_TOKENS });
    expect((await callModel(openai, fresh)).status).toBe(200);
    expect(await charged(dayKey(installationId))).toBe(3 * 100 + 2 * 15);
  });
});

describe("the upstream through the broker", () => {
  it("waits out a 429's Retry-After and answers the worker once", async () => {
    const job = await startJob(openai);
    standIn.script([reply.status(429, { retryAfter: "1" }), reply.text("after the wait", { usage: { input: 3, output: 2 } })]);
    const before = standIn.requests.length;
    const started = performance.now();
    const res = await callModel(openai, job);
    expect(res.status).toBe(200);
    expect((res.body.response as { content?: unknown }).content).toBe("after the wait");
    // The client's own backoff is 10 ms here: only Retry-After explains the wait.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(standIn.requests.slice(before).map((request) => request.status)).toEqual([429, 200]);
  });

  it.each([
    ["a 500 on every attempt", 500, 502, "LLM_UNAVAILABLE", 3],
    ["a 401", 401, 502, "LLM_REFUSED", 1],
  ] as const)("answers %s with %s and %s, the key scrubbed from the provider's message", async (_name, upstreamStatus, status, code, attempts) => {
    const job = await startJob(openai);
    standIn.script(() => reply.status(upstreamStatus, { errorMessage: `Incorrect API key provided: ${KEY}. Check your key.` }));
    const before = standIn.requests.length;
    const res = await callModel(openai, job);
    expect(refusal(res)).toMatchObject({ status, code });
    expect(standIn.requests.length - before).toBe(attempts);
    // The provider's message is there (so the key was in it), with the key cut out.
    expect(res.text).toContain("Incorrect API key provided: [redacted]");
    expect(res.text).not.toContain(KEY);
    expect(JSON.stringify(openai.api.logs)).not.toContain(KEY);
    // What a failed call used is unknown (a timed-out attempt may be billed): it keeps its worst case.
    expect(Number(await openai.api.redis.hget(budgetKey(job.jobId), "tokens"))).toBe(worstOf(chat()));
  });
});

describe("a worker that goes away", () => {
  /**
   * Sends a call, waits until `arrived` says the api passed it on (to the model or the page), and
   * hangs up; resolves once the api has logged the call's end.
   */
  async function abandon(path: "model" | "fetch", job: Started, extra: Record<string, unknown>, arrived: () => boolean): Promise<void> {
    const logged = openai.api.logs.length;
    const client = httpRequest(`${openai.api.url}/internal/jobs/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${alice}` },
    });
    client.on("error", () => undefined);
    client.end(JSON.stringify({ jobId: job.jobId, lockToken: job.lockToken, ...extra }));
    await expect.poll(arrived, { timeout: 5000 }).toBe(true);
    client.destroy();
    await expect.poll(() => openai.api.logs.slice(logged).some((line) => line.route === path && line.jobId === job.jobId), { timeout: 1000 }).toBe(true);
  }

  const abandonModel = (job: Started, request: Record<string, unknown>) => {
    const before = standIn.requests.length;
    return abandon("model", job, { request }, () => standIn.requests.length > before);
  };
  /** Error-level log lines of a job: a worker that hangs up is not a fault of the api. */
  const errorsOf = (job: Started) => openai.api.logs.filter((line) => line.jobId === job.jobId && line.level === 50);

  const slow = () => reply.text("slow", { delayMs: 1500, usage: { input: 10, output: 5 } });

  it("aborts the upstream call: the model server's answer finds the connection closed; a worker that waits is answered", async () => {
    const job = await startJob(openai);
    standIn.script(slow);
    const before = standIn.requests.length;
    await abandonModel(job, chat());
    await sleep(2000);
    expect(standIn.requests[before]?.status).toBe(0);
    expect(openai.api.logs.some((line) => line.msg === "model call" && line.jobId === job.jobId)).toBe(false);
    // The negative control: the same slow answer, waited for.
    const res = await callModel(openai, job);
    expect(res.status).toBe(200);
    expect(standIn.requests[before + 1]?.status).toBe(200);
  });

  it("charges an abandoned call its worst case: walking away from calls does not spend past the job's cap", async () => {
    const job = await startJob(openai);
    standIn.script(slow);
    const request = chat({ messages: [{ role: "user", content: "x".repeat(2000) }] });
    const worst = worstOf(request);
    await abandonModel(job, request);
    expect(Number(await openai.api.redis.hget(budgetKey(job.jobId), "tokens"))).toBe(worst);
    await abandonModel(job, request);
    expect(2 * worst).toBeGreaterThan(JOB_TOKENS);
    const res = await untouched(() => callModel(openai, job));
    expect(refusal(res)).toMatchObject({ status: 429, code: "LLM_BUDGET_EXCEEDED" });
    expect(errorsOf(job)).toEqual([]);
  });

  it("aborts a fetch: the page server's answer finds the connection closed; a worker that waits gets the page", async () => {
    const job = await startJob(openai);
    const before = served.length;
    await abandon("fetch", job, { url: `https://${DOCS_HOST}/slow` }, () => served.length > before);
    await expect.poll(() => served[before]?.finished, { timeout: 1000 }).toBe(false);
    expect(errorsOf(job)).toEqual([]);
    const res = await post(openai, "fetch", { jobId: job.jobId, lockToken: job.lockToken, url: `https://${DOCS_HOST}/slow` });
    expect(res).toMatchObject({ status: 200, body: { text: `page /slow of ${DOCS_HOST}` } });
    expect(served[before + 1]?.finished).toBe(true);
  });
});

describe("fetch_url through the broker", () => {
  const fetchUrl = (on: Broker, job: Started, url: string) => post(on, "fetch", { jobId: job.jobId, lockToken: job.lockToken, url });

  it("fetches an allowlisted page for a public repository, whose claim offers fetch_url", async () => {
    const job = await startJob(openai);
    expect(job.claim?.ai).toEqual({ model: MODEL, maxOutputTokens: CAP, contextTokens: 128_000, jobTokens: JOB_TOKENS, fetchUrl: true });
    const before = served.length;
    const res = await fetchUrl(openai, job, `https://${DOCS_HOST}/page?q=1`);
    expect(res).toMatchObject({
      status: 200,
      body: { url: `https://${DOCS_HOST}/page?q=1`, status: 200, contentType: "text/plain", text: `page /page?q=1 of ${DOCS_HOST}`, truncated: false },
    });
    expect(served.slice(before).map((entry) => entry.path)).toEqual(["/page?q=1"]);
  });

  it("refuses a host not on the allowlist", async () => {
    const job = await startJob(openai);
    const before = served.length;
    const res = await fetchUrl(openai, job, "https://evil.test/page");
    expect(refusal(res)).toMatchObject({ status: 403, code: "POLICY_DENIED", message: expect.stringContaining("not on the operator's allowlist") as unknown });
    expect(served.length).toBe(before);
  });

  it("refuses a private repository's job, with the host allowlisted; its claim does not offer fetch_url", async () => {
    const job = await startJob(openai, { private: true });
    expect((job.claim?.ai as { fetchUrl?: unknown }).fetchUrl).toBe(false);
    const before = served.length;
    const res = await fetchUrl(openai, job, `https://${DOCS_HOST}/page`);
    expect(refusal(res)).toEqual({ status: 403, code: "POLICY_DENIED", message: "fetch_url is off for private repositories" });
    expect(served.length).toBe(before);
  });

  it("refuses every fetch when the operator allowlisted no host; claims do not offer fetch_url", async () => {
    const job = await startJob(anthropic);
    expect((job.claim?.ai as { fetchUrl?: unknown }).fetchUrl).toBe(false);
    const before = served.length;
    const res = await fetchUrl(anthropic, job, `https://${DOCS_HOST}/page`);
    expect(refusal(res)).toMatchObject({ status: 403, code: "POLICY_DENIED", message: expect.stringContaining("allowlisted no host") as unknown });
    expect(served.length).toBe(before);
  });
});

describe("the AI cache", () => {
  const digest = (text: string) => createHash("sha256").update(text).digest("hex");
  const cache = (job: Started, op: "get" | "put", key: string, result?: unknown) =>
    post(openai, "ai-cache", { jobId: job.jobId, lockToken: job.lockToken, op, key, ...(op === "put" ? { result } : {}) });

  it("gives a job (and its retry) what it stored, first writer winning; another PR's job with the same key gets nothing", async () => {
    const key = digest(`chunk-${randomUUID()}`);
    const job = await startJob(openai);
    expect((await cache(job, "get", key)).body).toEqual({ result: null });
    expect((await cache(job, "put", key, { findings: ["first"] })).body).toEqual({ result: null });
    expect((await cache(job, "put", key, { findings: ["second"] })).status).toBe(200);
    expect((await cache(job, "get", key)).body).toEqual({ result: { findings: ["first"] } });
    const other = await startJob(openai);
    expect((await cache(other, "get", key)).body).toEqual({ result: null });
    await cache(other, "put", key, { findings: ["other PR"] });
    expect((await cache(other, "get", key)).body).toEqual({ result: { findings: ["other PR"] } });
    // The negative control for the namespace: the same job's next attempt reads its entry.
    const retried = await retry(openai, job);
    expect((await cache(retried, "get", key)).body).toEqual({ result: { findings: ["first"] } });
  });

  it("a lying worker's entry is not read by a later job of the same PR and head (a maintainer's `/review`, a re-run): it asks the model", async () => {
    const key = digest(`chunk-${randomUUID()}`);
    // The liar's job stores a review the model never wrote, under the key an honest worker computes for the chunk.
    const liar = await startJob(openai);
    await cache(liar, "put", key, { review: { summary: "All good.", findings: [] } });
    // Another delivery for the same PR and head: a new job, as a `/review` or a re-run makes.
    const again = pullRequestPayload({
      action: "reopened",
      installationId: 77,
      repositoryId: REPOSITORY_ID,
      repository: "octo/widgets",
      number: pullNumber,
      head: headSha(pullNumber),
    });
    const sent = await sendWebhook(`${openai.api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body: again, secret: SECRET });
    const honest = await take(openai, (JSON.parse(sent.body) as { jobId: string }).jobId, true);
    const target = (started: Started) => started.job.data as { pullNumber: number; headSha: string };
    expect(target(honest)).toMatchObject({ pullNumber: target(liar).pullNumber, headSha: target(liar).headSha });
    expect((await cache(honest, "get", key)).body).toEqual({ result: null });
    // Control: the liar's own job still reads it, on this attempt and the next.
    expect((await cache(liar, "get", key)).body).toEqual({ result: { review: { summary: "All good.", findings: [] } } });
    expect((await cache(await retry(openai, liar), "get", key)).body).toEqual({ result: { review: { summary: "All good.", findings: [] } } });
  });

  it("refuses a result past the cap (400, nothing stored); one at the cap is kept", async () => {
    const job = await startJob(openai);
    const [over, at] = [digest(`over-${randomUUID()}`), digest(`at-${randomUUID()}`)];
    // A string serialises to its length plus two quotes.
    const res = await cache(job, "put", over, "x".repeat(MAX_AI_CACHE_BYTES - 1));
    expect(refusal(res)).toMatchObject({ status: 400, code: "REQUEST_INVALID", message: expect.stringMatching(/^result: /) as unknown });
    expect((await cache(job, "get", over)).body).toEqual({ result: null });
    expect((await cache(job, "put", at, "x".repeat(MAX_AI_CACHE_BYTES - 2))).status).toBe(200);
    expect(((await cache(job, "get", at)).body.result as string).length).toBe(MAX_AI_CACHE_BYTES - 2);
  });

  it("keeps at most 200 entries per job: a worker cannot fill the api's Redis through it", async () => {
    const job = await startJob(openai);
    for (let index = 0; index < 200; index++) expect((await cache(job, "put", digest(`entry-${index}`), index)).status).toBe(200);
    const res = await cache(job, "put", digest("entry-200"), 200);
    expect(refusal(res)).toMatchObject({ status: 403, code: "POLICY_DENIED", message: expect.stringContaining("at most 200") as unknown });
    expect((await cache(job, "get", digest("entry-200"))).body).toEqual({ result: null });
    // Control: another job is not affected by this one's entries.
    const other = await startJob(openai);
    expect((await cache(other, "put", digest("entry-200"), 200)).status).toBe(200);
  });
});

describe("after every case", () => {
  it("the key is in no Redis key or value and no log line of either api (a planted copy is found)", async () => {
    for (const on of [openai, anthropic]) {
      expect(await redisContaining(on.api.redis, KEY)).toEqual([]);
      await on.api.redis.hset("test:planted", "field", `x${KEY}x`);
      expect(await redisContaining(on.api.redis, KEY)).toEqual(["test:planted"]);
      await on.api.redis.del("test:planted");
      // Claims log whether a token was minted under `token`, a field the logger always redacts.
      const logs = JSON.stringify(on.api.logs).replaceAll('"token":"[REDACTED]"', "");
      expect(logs).not.toContain(KEY);
      // The api's scrubber never had to cut it out: it never reached a log line at all.
      expect(logs).not.toContain("[REDACTED]");
    }
  });
});
