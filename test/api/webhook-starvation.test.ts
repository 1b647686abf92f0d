import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "../support/app-process.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { sendWebhook, signBody } from "../support/webhook-client.js";
import { deliveryId, pullRequestPayload } from "./webhook-payloads.js";

// Strangers who send a well-formed (forged) signature and then trickle their body used to hold
// every read slot until the 30 s request timeout; GitHub's deliveries got 503 meanwhile, and GitHub
// does not redeliver on its own. Each stranger here connects from an address of its own on the
// loopback (127.0.0.2 …), as strangers on the internet would, and reconnects the moment it is cut.
const SECRET = "starvation-secret-0123456789ab";
const DECLARED = 100_000;

let redis: LocalRedis;
let sinkDir: string;

interface RunningApi {
  readonly process: AppProcess;
  readonly port: number;
  readonly hook: string;
  readonly url: string;
}

async function startIntakeApi(name: string, env: Readonly<Record<string, string>> = {}): Promise<RunningApi> {
  const app = startApp("api", name, {
    REDIS_URL: redis.url,
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    REVIEWBOT_SINK: "local",
    REVIEWBOT_LOCAL_SINK_DIR: sinkDir,
    ...env,
  });
  const { port } = JSON.parse(await app.waitForLog(/"api listening"/)) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return { process: app, port, hook: `${url}/api/github/webhooks`, url };
}

/** How one trickling request ended: the status the api answered, or "closed" without one. */
type Ending = number | "closed";

/** One request with a forged signature whose body arrives a byte every 100 ms, from `localAddress`. */
function trickle(port: number, localAddress: string, headers: Readonly<Record<string, string>> = {}): { ended: Promise<Ending>; stop: () => void } {
  const socket = connect({ port, host: "127.0.0.1", localAddress });
  const head = [
    "POST /api/github/webhooks HTTP/1.1",
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    `Content-Length: ${DECLARED}`,
    "X-GitHub-Event: pull_request",
    `X-GitHub-Delivery: trickle-${deliveryId()}`,
    `X-Hub-Signature-256: ${signBody("not-the-secret", "x")}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  let timer: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write(`${head.join("\r\n")}\r\n\r\n{`);
    timer = setInterval(() => socket.write(" "), 100);
  });
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const ended = new Promise<Ending>((resolve) => {
    socket.on("close", () => {
      clearInterval(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve(status === undefined ? "closed" : Number(status));
    });
  });
  return { ended, stop: () => socket.destroy() };
}

/** `perAddress` tricklers from each address, each reconnecting when cut, until `stop`; what the api answered them. */
function attack(port: number, addresses: readonly string[], perAddress: number): { stop: () => Promise<Ending[]> } {
  const stopped = new AbortController();
  const endings: Ending[] = [];
  const current = new Set<{ stop: () => void }>();
  const loops = addresses.flatMap((address) =>
    Array.from({ length: perAddress }, async () => {
      while (!stopped.signal.aborted) {
        const one = trickle(port, address);
        current.add(one);
        const ending = await one.ended;
        current.delete(one);
        endings.push(ending);
      }
    }),
  );
  return {
    stop: async () => {
      stopped.abort();
      for (const one of current) one.stop();
      await Promise.all(loops);
      return endings;
    },
  };
}

const addresses = (count: number): string[] => Array.from({ length: count }, (_, index) => `127.0.0.${index + 2}`);

/** Signed deliveries one after another (two at a time) from 127.0.0.1: each one's status and milliseconds to its answer. */
async function deliveries(api: RunningApi, count: number, timeoutMs: number): Promise<{ status: number | "timeout"; ms: number }[]> {
  const one = async (index: number): Promise<{ status: number | "timeout"; ms: number }> => {
    const started = performance.now();
    const sent = sendWebhook(api.hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 100 + index }), secret: SECRET });
    const status = await Promise.race([sent.then((answer) => answer.status), sleep(timeoutMs).then(() => "timeout" as const)]);
    return { status, ms: Math.round(performance.now() - started) };
  };
  const results: { status: number | "timeout"; ms: number }[] = [];
  for (let index = 0; index < count; index += 2) results.push(...(await Promise.all([one(index), one(index + 1)])));
  return results;
}

async function refused(api: RunningApi, code: string): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = new RegExp(`^reviewbot_webhook_deliveries_total\\{event="unverified",outcome="rejected",reason="${code}"\\} (\\d+)$`, "m").exec(text);
  return Number(line?.[1] ?? 0);
}

beforeAll(async () => {
  redis = await startLocalRedis();
  sinkDir = await mkdtemp(join(tmpdir(), "reviewbot-starvation-"));
});
afterAll(async () => {
  await redis.stop();
  await rm(sinkDir, { recursive: true, force: true });
});

describe("webhook intake against tricklers (real api process, default limits)", () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startIntakeApi("api-starvation");
  });
  afterAll(async () => {
    await api.process.stop();
  });

  it.each([
    [8, 1],
    [24, 3],
  ])(
    "with %i trickling connections (%i per address) open, every signed delivery gets 202 within the body deadline (5 s); the tricklers are cut 408 and counted",
    async (_total, perAddress) => {
      const slowBefore = await refused(api, "WEBHOOK_TOO_SLOW");
      const strangers = attack(api.port, addresses(8), perAddress);
      // Let them take every slot (and the line) first.
      await sleep(300);
      const answers = await deliveries(api, 10, 10_000);
      const endings = await strangers.stop();
      expect(
        answers.filter((answer) => answer.status !== 202 || answer.ms > 5000),
        JSON.stringify(answers),
      ).toEqual([]);
      expect(endings.length).toBeGreaterThan(0);
      expect(endings.filter((ending) => ending !== 408 && ending !== "closed")).toEqual([]);
      expect((await refused(api, "WEBHOOK_TOO_SLOW")) - slowBefore).toBeGreaterThanOrEqual(endings.filter((ending) => ending === 408).length);
      const cut = api.process.records().filter((line) => line.msg === "webhook refused" && line.code === "WEBHOOK_TOO_SLOW");
      expect(cut.length).toBeGreaterThan(0);
      expect(cut[0]).toMatchObject({ missed: "rate", source: expect.stringMatching(/^127\.0\.0\.\d+$/) as unknown });
    },
  );

  it("cuts a lone trickler for its rate, long before the body deadline, closing its connection", async () => {
    const started = performance.now();
    const one = trickle(api.port, "127.0.0.20");
    expect(await one.ended).toBe(408);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("negative control: a large signed delivery sent at a normal rate (5 MiB at about 3 MiB/s) is accepted", async () => {
    const raw = Buffer.from(JSON.stringify({ ...pullRequestPayload({ number: 200 }), padding: "x".repeat(5 * 1024 * 1024) }));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(api.hook, {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": raw.length,
          "x-github-event": "pull_request",
          "x-github-delivery": deliveryId(),
          "x-hub-signature-256": signBody(SECRET, raw),
        },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      void (async () => {
        for (let offset = 0; offset < raw.length; offset += 64 * 1024) {
          req.write(raw.subarray(offset, offset + 64 * 1024));
          await sleep(20);
        }
        req.end();
      })();
    });
    expect(status).toBe(202);
  });

  it("holds one address to its share: 8 tricklers from one address get 4 places, the rest 503 at once; a delivery from elsewhere is read meanwhile", async () => {
    const busyBefore = await refused(api, "WEBHOOK_BUSY");
    // X-Forwarded-For is the sender's word: without REVIEWBOT_TRUST_PROXY it changes nothing.
    const held = Array.from({ length: 8 }, (_, index) => trickle(api.port, "127.0.0.30", { "X-Forwarded-For": `203.0.113.${index}` }));
    const early = await Promise.all(held.map(({ ended }) => Promise.race([ended, sleep(500).then(() => "open" as const)])));
    const answers = await deliveries(api, 2, 5000);
    for (const one of held) one.stop();
    expect(early.filter((ending) => ending === 503)).toHaveLength(4);
    expect(early.filter((ending) => ending === "open")).toHaveLength(4);
    expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
    expect((await refused(api, "WEBHOOK_BUSY")) - busyBefore).toBe(4);
    const refusal = api.process.records().find((line) => line.msg === "webhook refused" && line.code === "WEBHOOK_BUSY");
    expect(refusal).toMatchObject({ source: "127.0.0.30", limit: 4 });
  });
});

describe("negative controls: the limits are what keeps deliveries flowing", () => {
  it("with the pace off (1 byte a second, 30 s) the same 8 tricklers starve a signed delivery", async () => {
    const lax = await startIntakeApi("api-lax", { REVIEWBOT_WEBHOOK_MIN_BYTES_PER_SECOND: "1", REVIEWBOT_WEBHOOK_BODY_DEADLINE_MS: "30000" });
    try {
      const strangers = attack(lax.port, addresses(8), 1);
      await sleep(300);
      const answers = await deliveries(lax, 2, 3000);
      await strangers.stop();
      expect(answers.map((answer) => answer.status)).toEqual(["timeout", "timeout"]);
    } finally {
      await lax.process.stop();
    }
  });

  it("with REVIEWBOT_TRUST_PROXY naming the loopback, each forwarded address has a share of its own", async () => {
    const proxied = await startIntakeApi("api-proxied", { REVIEWBOT_TRUST_PROXY: "loopback" });
    try {
      const held = Array.from({ length: 8 }, (_, index) => trickle(proxied.port, "127.0.0.30", { "X-Forwarded-For": `203.0.113.${index}` }));
      const early = await Promise.all(held.map(({ ended }) => Promise.race([ended, sleep(500).then(() => "open" as const)])));
      for (const one of held) one.stop();
      expect(early.filter((ending) => ending === "open")).toHaveLength(8);
    } finally {
      await proxied.process.stop();
    }
  });
});
