/**
 * Webhook intake under tricklers. Prints, on this machine, with a real api process and Redis: the
 * accept latency (p50, p99, max) of signed deliveries sent while N strangers hold connections that
 * carry a forged signature and trickle their bodies a byte every 100 ms (each reconnecting as soon
 * as it is cut, from addresses 127.0.0.2 … so the api's per-address limit applies as it would to
 * strangers on the internet), then how the api refused the strangers (from /metrics).
 *
 * Run: `pnpm --filter @reviewbot/bench bench:trickle` (after a build). BENCH_TRICKLERS (default
 * "0,8,32,128") lists the N to run; BENCH_TRICKLE_ADDRESSES (default 32) how many addresses they
 * come from; BENCH_DELIVERIES (default 40) the signed deliveries per N, two at a time. Extra
 * REVIEWBOT_WEBHOOK_* variables in the environment go to the api (e.g. a lax pace, to compare).
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, startRedis } from "./fleet-process.js";
import { percentile } from "./percentile.js";
import { pullRequestDelivery } from "./pull-request-delivery.js";

const TRICKLERS = (process.env.BENCH_TRICKLERS ?? "0,8,32,128").split(",").map(Number);
const ADDRESSES = Number(process.env.BENCH_TRICKLE_ADDRESSES ?? 32);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 40);
const SECRET = randomBytes(16).toString("hex");
const HEADS = { baseSha: "a".repeat(40), headSha: "b".repeat(40) };
/** An answer later than this counts as lost: GitHub gives up on a delivery after 10 s. */
const GITHUB_TIMEOUT_MS = 10_000;

/** One stranger: a forged signature, then a byte every 100 ms until the api answers or closes. */
function trickle(port: number, localAddress: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    let timer: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      const forged = `sha256=${createHmac("sha256", "not-the-secret").update("x").digest("hex")}`;
      socket.write(
        `POST /api/github/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n` +
          `X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: ${randomUUID()}\r\nX-Hub-Signature-256: ${forged}\r\n\r\n{`,
      );
      timer = setInterval(() => socket.write(" "), 100);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve();
    });
  });
}

/** `count` strangers, each reconnecting when cut, until the returned stop is called. */
function strangers(port: number, count: number): () => Promise<void> {
  let running = true;
  const loops = Array.from({ length: count }, async (_, index) => {
    const address = `127.0.0.${2 + (index % ADDRESSES)}`;
    while (running) await trickle(port, address);
  });
  return async () => {
    running = false;
    await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 6000))]);
  };
}

async function deliver(hook: string, number: number): Promise<{ status: number | "lost"; ms: number }> {
  const body = pullRequestDelivery("bench/trickle", number, HEADS);
  const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
  const started = performance.now();
  const response = await fetch(hook, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature },
    body,
    signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
  })
    .then(async (answer) => (await answer.arrayBuffer(), answer.status))
    .catch(() => "lost" as const);
  return { status: response, ms: performance.now() - started };
}

async function refusals(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^reviewbot_webhook_deliveries_total\{event="unverified",outcome="rejected",reason="(\w+)"\} (\d+)$/gm)) {
    counts[match[1] ?? ""] = Number(match[2]);
  }
  return counts;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "reviewbot-bench-trickle-"));
  await chmod(root, 0o755);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const redis = startRedis(root, port);
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("REVIEWBOT_WEBHOOK_")) as [string, string][]);
  const api = startProcess(["api"], {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    REVIEWBOT_LOG_LEVEL: "info",
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: SECRET,
    REVIEWBOT_SINK: "local",
    REVIEWBOT_LOCAL_SINK_DIR: join(root, "sink"),
    ...passed,
  });
  try {
    await redis.waitFor(/Ready to accept connections/);
    const apiPort = (JSON.parse(await api.waitFor(/"api listening"/)) as { port: number }).port;
    const url = `http://127.0.0.1:${apiPort}`;
    console.log(`api settings: ${JSON.stringify(passed)} (the rest default)`);
    for (const count of TRICKLERS) {
      const before = await refusals(url);
      const stop = strangers(apiPort, count);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const results: { status: number | "lost"; ms: number }[] = [];
      for (let i = 0; i < DELIVERIES; i += 2)
        results.push(...(await Promise.all([deliver(`${url}/api/github/webhooks`, i + 1), deliver(`${url}/api/github/webhooks`, i + 2)])));
      await stop();
      const after = await refusals(url);
      const latencies = results
        .filter((result) => result.status === 202)
        .map((result) => result.ms)
        .sort((a, b) => a - b);
      const statuses: Record<string, number> = {};
      for (const result of results) statuses[String(result.status)] = (statuses[String(result.status)] ?? 0) + 1;
      const refused: Record<string, number> = {};
      for (const [code, n] of Object.entries(after)) if (n !== (before[code] ?? 0)) refused[code] = n - (before[code] ?? 0);
      console.log(
        `${String(count).padStart(4)} tricklers: ${DELIVERIES} signed deliveries ${JSON.stringify(statuses)}; accept p50 ${percentile(latencies, 50).toFixed(0)} ms` +
          `   p99 ${percentile(latencies, 99).toFixed(0)} ms   max ${(latencies.at(-1) ?? Number.NaN).toFixed(0)} ms; strangers refused ${JSON.stringify(refused)}`,
      );
    }
  } finally {
    await api.stop();
    await redis.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
