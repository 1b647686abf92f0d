import { createHmac, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { percentile } from "./percentile.js";
import { pullRequestDelivery } from "./pull-request-delivery.js";

/** Where deliveries go and how they are signed. */
export interface WebhookTarget {
  readonly apiUrl: string;
  readonly secret: string;
  readonly repository: string;
  readonly heads: { readonly baseSha: string; readonly headSha: string };
}

/** What a run of deliveries came to: latencies (ms, ascending), statuses, and the rate achieved. */
export interface LoadResult {
  readonly sorted: readonly number[];
  readonly statuses: ReadonlyMap<number, number>;
  readonly perSecond: number;
}

interface SignedDelivery {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

// Kept-alive sockets and bodies signed before the clock starts: the sender shares the api's cores,
// so what it spends per request (fetch's machinery, an HMAC) is CPU the api does not get.
const AGENT = new Agent({ keepAlive: true, maxSockets: 512 });

function signed(target: WebhookTarget, count: number, firstPull: number, pulls: number): SignedDelivery[] {
  return Array.from({ length: count }, (_, i) => {
    const body = Buffer.from(pullRequestDelivery(target.repository, firstPull + (i % pulls), target.heads));
    const signature = `sha256=${createHmac("sha256", target.secret).update(body).digest("hex")}`;
    const headers = {
      "content-type": "application/json",
      "content-length": String(body.length),
      "x-github-event": "pull_request",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": signature,
    };
    return { body, headers };
  });
}

/** Sends one delivery; resolves with the status and the answer's body (0 and "" when the connection failed). */
function post(url: URL, delivery: SignedDelivery): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const sent = request(url, { method: "POST", agent: AGENT, headers: delivery.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
      });
      response.on("error", () => {
        resolve({ status: 0, body: "" });
      });
    });
    sent.on("error", () => {
      resolve({ status: 0, body: "" });
    });
    sent.end(delivery.body);
  });
}

function result(latencies: number[], statuses: ReadonlyMap<number, number>, seconds: number): LoadResult {
  return { sorted: latencies.sort((a, b) => a - b), statuses, perSecond: latencies.length / seconds };
}

/**
 * Open loop: delivery i is due at i × 1000/rate ms whatever the answers do; every tick sends all
 * that are due (a timer per delivery could not keep 1,000/s: each costs at least a millisecond).
 * Latency per request, from its send to the end of its answer. PRs 1 to 100 in turn.
 */
export async function openLoop(target: WebhookTarget, rate: number, count: number): Promise<LoadResult> {
  const url = new URL("/api/github/webhooks", target.apiUrl);
  const deliveries = signed(target, count, 1, 100);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const sends: Promise<void>[] = [];
  const started = performance.now();
  const send = (delivery: SignedDelivery): void => {
    const sent = performance.now();
    sends.push(
      post(url, delivery).then(({ status }) => {
        latencies.push(performance.now() - sent);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
    );
  };
  for (let i = 0; i < count;) {
    for (const now = performance.now(); i < count && started + (i * 1000) / rate <= now; i++) send(deliveries[i] as SignedDelivery);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / rate - performance.now())));
  }
  await Promise.all(sends);
  return result(latencies, statuses, (performance.now() - started) / 1000);
}

/**
 * Closed loop: `inFlight` senders, each sending its next delivery when its last is answered, one
 * PR per delivery from `firstPull` on: the most the api answers. `onAnswer` sees each answer.
 */
export async function closedLoop(
  target: WebhookTarget,
  count: number,
  inFlight: number,
  firstPull: number,
  onAnswer: (status: number, body: string) => void = () => undefined,
): Promise<LoadResult> {
  const url = new URL("/api/github/webhooks", target.apiUrl);
  const deliveries = signed(target, count, firstPull, count);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  const sender = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const sent = performance.now();
      const { status, body } = await post(url, deliveries[i] as SignedDelivery);
      latencies.push(performance.now() - sent);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      onAnswer(status, body);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  return result(latencies, statuses, (performance.now() - started) / 1000);
}

/** `p50 … ms   p99 … ms   max … ms` of a run. */
export function latencyLine(run: LoadResult): string {
  const { sorted } = run;
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   max ${(sorted.at(-1) ?? 0).toFixed(2)} ms`;
}

/** The statuses of a run as `{"202":5000}`. */
export function statusesOf(run: LoadResult): string {
  return JSON.stringify(Object.fromEntries(run.statuses));
}
