/**
 * Fleet benchmark. Prints, on this machine, with real processes and a real Redis:
 * webhook accept latency at 200 and 1,000 requests/s (target p99 < 25 ms at 1,000/s),
 * enqueue-to-start latency with an idle worker (target p50 < 50 ms), throughput of no-op reviews
 * with 1, 2 and 4 worker processes, the RSS of the api and a worker at idle (target < 150 MB each),
 * and a burst of 5,000 deliveries reviewed end to end by the 4 workers (bench/src/delivery-burst.ts:
 * each reviewed exactly once, the time to drain, Redis's memory per queued job).
 *
 * Run: `pnpm --filter @reviewbot/bench bench:fleet` (after `bash scripts/setup.sh`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { newWorkerCredential, parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { createNoopPr } from "./bench-repos.js";
import { deliveryBurst } from "./delivery-burst.js";
import { startProcess, startRedis, type FleetProcess } from "./fleet-process.js";
import { percentile } from "./percentile.js";
import { latencyLine, openLoop, statusesOf, type WebhookTarget } from "./webhook-load.js";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";

const RATES = (process.env.BENCH_WEBHOOK_RATES ?? "200,1000").split(",").map(Number);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 5000);
const BURST = Number(process.env.BENCH_BURST ?? 5000);
const SEQUENTIAL_JOBS = Number(process.env.BENCH_SEQUENTIAL_JOBS ?? 30);
const THROUGHPUT_JOBS = Number(process.env.BENCH_THROUGHPUT_JOBS ?? 60);
// The fleet's keyspace, as the api and workers read it (a hash tag measures the Cluster-ready layout).
const PREFIX = process.env.REVIEWBOT_REDIS_PREFIX;
const KEYS = redisKeyspace(PREFIX);
const SECRET = randomBytes(16).toString("hex");
const SEAL = QueueSeal.fromSecret(SECRET);
const CREDENTIALS = Array.from({ length: 4 }, (_, index) => newWorkerCredential(`bench-${index}`));
const REPOSITORY = "bench/noop";

/** Open-loop webhook accept latency at `rate` (bench/src/webhook-load.ts). */
async function webhookLatency(target: WebhookTarget, rate: number, count: number): Promise<void> {
  const run = await openLoop(target, rate, count);
  console.log(`webhook accept at ${rate}/s (${count} deliveries, achieved ${run.perSecond.toFixed(0)}/s, statuses ${statusesOf(run)})`);
  console.log(`  ${latencyLine(run)}   (target p99 < 25 ms at 1,000/s)`);
}

function job(number: number, heads: { baseSha: string; headSha: string }): ReviewJob {
  return {
    installationId: 1 + (number % 5),
    repositoryId: 4242,
    repository: REPOSITORY,
    pullNumber: number,
    ...heads,
    baseRef: "main",
    defaultBranch: "main",
    pullUpdatedAt: new Date().toISOString(),
    headFrom: "event",
    repositoryPrivate: true,
    deliveryId: randomUUID(),
    trigger: "local",
    reply: null,
  };
}

async function finished(queue: Queue, events: QueueEvents, jobId: string, timeoutMs: number): Promise<void> {
  const added = await queue.getJob(jobId);
  if (added === undefined) throw new Error(`job ${jobId} vanished`);
  await added.waitUntilFinished(events, timeoutMs);
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "reviewbot-bench-fleet-"));
  await chmod(root, 0o755);
  const heads = createNoopPr(join(root, "repos", REPOSITORY));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const processes: FleetProcess[] = [];
  const redis = startRedis(root, port);
  processes.push(redis);
  const connection = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(n * 50, 500) });
  try {
    await redis.waitFor(/Ready to accept connections/);
    const common = { REDIS_URL: `redis://127.0.0.1:${port}`, REVIEWBOT_LOG_LEVEL: "warn", ...(PREFIX === undefined ? {} : { REVIEWBOT_REDIS_PREFIX: PREFIX }) };
    const workersFile = join(root, "workers");
    await writeFile(workersFile, CREDENTIALS.map((credential) => registryLine(parseWorkerCredential(credential) ?? { name: "", secret: "" })).join("\n"));
    const api = startProcess(["api"], {
      ...common,
      REVIEWBOT_LOG_LEVEL: "info",
      REVIEWBOT_PORT: "0",
      REVIEWBOT_WEBHOOK_SECRET: SECRET,
      REVIEWBOT_SINK: "local",
      REVIEWBOT_LOCAL_SINK_DIR: join(root, "sink"),
      REVIEWBOT_WORKERS_FILE: workersFile,
    });
    processes.push(api);
    const apiPort = (JSON.parse(await api.waitFor(/"api listening"/)) as { port: number }).port;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const apiIdle = await api.memory();

    const target: WebhookTarget = { apiUrl: `http://127.0.0.1:${apiPort}`, secret: SECRET, repository: REPOSITORY, heads };
    // Warm-up, not counted: the api's first requests load BullMQ's scripts and compile its hot paths.
    await openLoop(target, 200, 1000);
    for (const rate of RATES) await webhookLatency(target, rate, WEBHOOKS);
    const queue = new Queue(REVIEW_QUEUE, { connection, prefix: KEYS.bull });
    // Every waitUntilFinished listens for the queue closing; 60 at once is expected, not a leak.
    queue.setMaxListeners(THROUGHPUT_JOBS + 10);
    await queue.obliterate({ force: true });

    const workerEnv = {
      ...common,
      REVIEWBOT_LOG_LEVEL: "info",
      REVIEWBOT_API_URL: `http://127.0.0.1:${apiPort}`,
      REVIEWBOT_SOURCE: "local",
      REVIEWBOT_LOCAL_REPOS_DIR: join(root, "repos"),
      REVIEWBOT_ENGINE: "bwrap",
      REVIEWBOT_WORKER_PORT: "0",
    };
    const workers: FleetProcess[] = [];
    const addWorker = async (): Promise<void> => {
      const worker = startProcess(["worker"], {
        ...workerEnv,
        REVIEWBOT_WORKER_CREDENTIAL: CREDENTIALS[workers.length] ?? "",
        REVIEWBOT_CACHE_DIR: join(root, `cache-${String(workers.length)}`),
      });
      processes.push(worker);
      workers.push(worker);
      await worker.waitFor(/"worker started"/);
    };
    await addWorker();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const workerIdle = await workers[0]?.memory();

    // Connection options, not a client: BullMQ closes only a connection it opened itself, and a
    // client left open here kept the bench alive, reconnecting, after Redis stopped.
    const events = new QueueEvents(REVIEW_QUEUE, { connection: { host: "127.0.0.1", port }, prefix: KEYS.bull });
    await events.waitUntilReady();
    const waits: number[] = [];
    for (let i = 0; i < SEQUENTIAL_JOBS; i++) {
      const { jobId } = await enqueueReview(queue, connection, KEYS, SEAL, job(1000 + i, heads));
      await finished(queue, events, jobId, 60_000);
      const done = await queue.getJob(jobId);
      waits.push((done?.processedOn ?? Number.NaN) - (done?.timestamp ?? Number.NaN));
    }
    waits.sort((a, b) => a - b);
    console.log(
      `enqueue-to-start, idle worker (${SEQUENTIAL_JOBS} jobs one at a time): p50 ${percentile(waits, 50)} ms   p90 ${percentile(waits, 90)} ms   (target p50 < 50 ms)`,
    );

    for (const count of [1, 2, 4]) {
      while (workers.length < count) await addWorker();
      await queue.obliterate({ force: true });
      const started = performance.now();
      const ids = await Promise.all(
        Array.from({ length: THROUGHPUT_JOBS }, (_, i) => enqueueReview(queue, connection, KEYS, SEAL, job(10_000 * count + i, heads)).then((o) => o.jobId)),
      );
      await Promise.all(ids.map((id) => finished(queue, events, id, 300_000)));
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `throughput, ${count} worker process(es) × concurrency 2: ${THROUGHPUT_JOBS} no-op reviews in ${seconds.toFixed(2)} s = ${(THROUGHPUT_JOBS / seconds).toFixed(1)} reviews/s`,
      );
    }
    if (BURST > 0) {
      await deliveryBurst({ ...target, queue, redis: connection, sinkDir: join(root, "sink") }, BURST);
    }
    console.log(
      `idle RSS: api ${apiIdle.rssMiB.toFixed(1)} MiB (peak ${apiIdle.peakMiB.toFixed(1)}), worker ${(workerIdle?.rssMiB ?? 0).toFixed(1)} MiB (peak ${(workerIdle?.peakMiB ?? 0).toFixed(1)})   (target < 150 MB each)`,
    );
    await events.close();
    await queue.close();
  } finally {
    connection.disconnect();
    for (const child of processes.reverse()) await child.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
