import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request, type ClientRequest, type OutgoingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "../support/app-process.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { sendWebhook, signBody } from "../support/webhook-client.js";
import { deliveryId, pullRequestPayload } from "./webhook-payloads.js";

// Strangers' bodies used to be read whole (up to 25 MiB each) before the HMAC was checked;
// 24 of them took the api from 87 MB to 963 MB. "26 MB" is under GitHub's 25 MiB cap
// (26,214,400 bytes), so nothing refuses these bodies for their size: every byte would be read.
const SECRET = "intake-memory-secret-0123456789";
const BODY = Buffer.alloc(26_000_000, 0x20);
const SENDERS = 24;
const LIMIT = 2;
const MiB = 1024 * 1024;
/** What a process grows by besides the bodies it holds (sockets, parsers, log lines). */
const SLACK = 32 * MiB;
/** The most `reads` concurrent reads may add: each body once (no copy until its HMAC matches), half again for GC lag. */
const bound = (reads: number): number => reads * BODY.length * 1.5 + SLACK;

let redis: LocalRedis;
let sinkDir: string;
let api: RunningApi;

interface RunningApi {
  readonly process: AppProcess;
  readonly pid: number;
  readonly hook: string;
  readonly url: string;
}

async function startIntakeApi(maxConcurrentReads: number): Promise<RunningApi> {
  const app = startApp("api", `api-${maxConcurrentReads}`, {
    REDIS_URL: redis.url,
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    REVIEWBOT_SINK: "local",
    REVIEWBOT_LOCAL_SINK_DIR: sinkDir,
    REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: String(maxConcurrentReads),
    // Every sender here is the loopback: its share is all the slots, so that a read past them is
    // refused at once (a request from another address would wait for a slot; webhook-starvation.test.ts).
    REVIEWBOT_WEBHOOK_READS_PER_SOURCE: String(maxConcurrentReads),
    // This file measures memory, not slow senders: on a loaded machine 24 bodies of 26 MB at once may take
    // longer than the default 5 s (a CI run had 18 of 24 cut off 408 WEBHOOK_TOO_SLOW, and so never read whole).
    REVIEWBOT_WEBHOOK_BODY_DEADLINE_MS: "30000",
    REVIEWBOT_WEBHOOK_MIN_BYTES_PER_SECOND: "1",
  });
  const { port } = JSON.parse(await app.waitForLog(/"api listening"/)) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  // Warm the code paths (and their allocations) before anything is measured.
  expect((await sendWebhook(`${url}/api/github/webhooks`, { event: "ping", deliveryId: deliveryId(), body: { zen: "warm" }, secret: SECRET })).status).toBe(
    202,
  );
  return { process: app, pid: app.child.pid ?? 0, hook: `${url}/api/github/webhooks`, url };
}

/** Resident and peak resident bytes of a process (/proc/<pid>/status). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

/** How far above its resident size before `load` the process's peak went during it (`5` to clear_refs resets VmHWM). */
async function peakGrowth(pid: number, load: () => Promise<unknown>): Promise<{ before: number; peak: number; growth: number }> {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const before = memory(pid).rss;
  await load();
  const peak = memory(pid).peak;
  return { before, peak, growth: peak - before };
}

type Answer = { status: number; retryAfter: string | undefined; connection: string | undefined } | "reset";

/** One POST on its own connection; a server that answers early and closes may reset it before the answer is read. */
function post(hook: string, headers: OutgoingHttpHeaders, body: Buffer | null): { request: ClientRequest; answer: Promise<Answer> } {
  const req = request(hook, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": BODY.length, ...headers } });
  const answer = new Promise<Answer>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], connection: res.headers.connection });
    });
    req.on("error", () => {
      resolve("reset");
    });
  });
  if (body === null) req.flushHeaders();
  else req.end(body);
  return { request: req, answer };
}

function strangers(hook: string, headers: OutgoingHttpHeaders): Promise<Answer[]> {
  return Promise.all(
    Array.from(
      { length: SENDERS },
      (_, index) => post(hook, { "x-github-event": "pull_request", "x-github-delivery": `stranger-${index}`, ...headers }, BODY).answer,
    ),
  );
}

/** A signature of the right form that matches nothing these senders send. */
const FORGED = { "x-hub-signature-256": signBody("not-the-secret", "x") };

/** Unverified deliveries rejected so far, by reason (the api's /metrics). */
async function rejections(target: RunningApi): Promise<Record<string, number>> {
  const text = await (await fetch(`${target.url}/metrics`)).text();
  const lines = text.matchAll(/^reviewbot_webhook_deliveries_total\{event="unverified",outcome="rejected",reason="(\w+)"\} (\d+)$/gm);
  return Object.fromEntries([...lines].map(([, reason, count]): [string, number] => [reason ?? "", Number(count)]));
}

async function refused(target: RunningApi, code: string): Promise<number> {
  return (await rejections(target))[code] ?? 0;
}

beforeAll(async () => {
  redis = await startLocalRedis();
  sinkDir = await mkdtemp(join(tmpdir(), "reviewbot-intake-"));
  api = await startIntakeApi(LIMIT);
});
afterAll(async () => {
  await api.process.stop();
  await redis.stop();
  await rm(sinkDir, { recursive: true, force: true });
});

describe("webhook intake under unsigned load (real api process)", () => {
  it("refuses bodies without a well-formed signature before reading them; a signed delivery sent meanwhile is accepted", async () => {
    let signed: { status: number; body: string } | undefined;
    const measured = await peakGrowth(api.pid, async () => {
      const load = strangers(api.hook, {});
      signed = await sendWebhook(api.hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 41 }), secret: SECRET });
      const answers = await load;
      expect(answers.filter((answer) => answer !== "reset" && answer.status !== 401)).toEqual([]);
    });
    expect(signed?.status).toBe(202);
    expect(JSON.parse(signed?.body ?? "{}")).toMatchObject({ status: "accepted" });
    expect(measured.growth, figures(measured)).toBeLessThan(SLACK);
  });

  it(`reads at most ${LIMIT} forged-signature bodies at once and refuses the rest 503 WEBHOOK_BUSY: RSS peak within ${LIMIT} bodies`, async () => {
    const [busyBefore, invalidBefore] = [await refused(api, "WEBHOOK_BUSY"), await refused(api, "WEBHOOK_SIGNATURE_INVALID")];
    const measured = await peakGrowth(api.pid, async () => {
      const answers = await strangers(api.hook, FORGED);
      expect(answers.filter((answer) => answer !== "reset" && answer.status !== 401 && answer.status !== 503)).toEqual([]);
    });
    const busy = (await refused(api, "WEBHOOK_BUSY")) - busyBefore;
    const invalid = (await refused(api, "WEBHOOK_SIGNATURE_INVALID")) - invalidBefore;
    expect(busy + invalid).toBe(SENDERS);
    expect(busy).toBeGreaterThanOrEqual(SENDERS / 2);
    expect(measured.growth, figures(measured)).toBeLessThan(bound(LIMIT));
    // The slots were all given back: a signed delivery is read and accepted.
    const after = await sendWebhook(api.hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 42 }), secret: SECRET });
    expect(after.status).toBe(202);
  });

  it("answers the read beyond the limit 503 at once, before its body is sent, with Retry-After and Connection: close", async () => {
    const held = Array.from({ length: LIMIT }, (_, index) =>
      post(api.hook, { ...FORGED, "x-github-event": "ping", "x-github-delivery": `held-${index}` }, null),
    );
    for (const { request: req } of held) req.write(BODY.subarray(0, 1024));
    // The held requests' headers are in once the api has given out every slot: poll with the extra request itself.
    // A probe that still got a slot waits for a body it never gets: given up after 200 ms (its slot is freed).
    let extra: Answer | "no answer" = "no answer";
    for (let tries = 0; tries < 100; tries++) {
      const probe = post(api.hook, { ...FORGED, "x-github-event": "ping", "x-github-delivery": `extra-${tries}` }, null);
      extra = await Promise.race([probe.answer, sleep(200).then(() => "no answer" as const)]);
      probe.request.destroy();
      if (extra !== "reset" && extra !== "no answer" && extra.status === 503) break;
    }
    expect(extra).toEqual({ status: 503, retryAfter: "1", connection: "close" });
    // Negative control: the held reads finish (forged: 401) and free their slots; the next delivery is read.
    for (const { request: req } of held) req.end(BODY.subarray(1024));
    expect((await Promise.all(held.map(({ answer }) => answer))).map((answer) => (answer === "reset" ? answer : answer.status))).toEqual(
      Array<number>(LIMIT).fill(401),
    );
    expect((await sendWebhook(api.hook, { event: "ping", deliveryId: deliveryId(), body: { zen: "after" }, secret: SECRET })).status).toBe(202);
  });

  it("negative control: with the limit raised to the number of senders, the same forged load grows the api past that bound", async () => {
    const raised = await startIntakeApi(SENDERS);
    try {
      const invalidBefore = await refused(raised, "WEBHOOK_SIGNATURE_INVALID");
      const measured = await peakGrowth(raised.pid, () => strangers(raised.hook, FORGED));
      const invalid = (await refused(raised, "WEBHOOK_SIGNATURE_INVALID")) - invalidBefore;
      expect(invalid, `rejections: ${JSON.stringify(await rejections(raised))}`).toBe(SENDERS);
      expect(measured.growth, figures(measured)).toBeGreaterThan(bound(LIMIT));
    } finally {
      await raised.process.stop();
    }
  });
});

function figures(measured: { before: number; peak: number; growth: number }): string {
  const mb = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
  return `api RSS ${mb(measured.before)} before the load, peak ${mb(measured.peak)} (+${mb(measured.growth)}); bound +${mb(bound(LIMIT))}`;
}
