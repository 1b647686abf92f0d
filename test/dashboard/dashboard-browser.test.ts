import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import type { Browser, BrowserContext, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { startApp, type AppProcess } from "../support/app-process.js";
import { launchHeadlessChromium } from "../support/headless-chromium.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { startPageServer, type PageServer } from "../support/page-server.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// The dashboard in a real browser: Debian's Chromium (headless, driven by playwright-core)
// against the real api process, with a finished review in the queue.

const USER = "admin"; // REVIEWBOT_DASHBOARD_USER is left unset: the default
const PASSWORD = randomBytes(12).toString("hex");
const FOREIGN_HOST = "evil.test";
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const review: ReviewJob = {
  installationId: 4711,
  repositoryId: 9001,
  repository: "acme/widgets",
  pullNumber: 42,
  headSha: "a".repeat(40),
  baseSha: "b".repeat(40),
  baseRef: "main",
  defaultBranch: "main",
  repositoryPrivate: true,
  pullUpdatedAt: "2024-05-06T07:08:09Z",
  headFrom: "event",
  deliveryId: randomUUID(),
  trigger: "pull_request",
  reply: null,
};

let root: string;
let redis: LocalRedis | undefined;
let api: AppProcess | undefined;
let apiUrl: string;
const WEBHOOK_SECRET = `whsec-${randomBytes(16).toString("hex")}`;
let connection: Redis | undefined;
let reviews: Queue | undefined;
let jobId: string;
let browser: Browser | undefined;
let operator: BrowserContext;
let foreign: PageServer | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "reviewbot-dashboard-"));
  redis = await startLocalRedis();
  api = startApp("api", "api", {
    REDIS_URL: redis.url,
    REVIEWBOT_LOG_LEVEL: "info",
    REVIEWBOT_PORT: "0",
    REVIEWBOT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    REVIEWBOT_SINK: "local",
    REVIEWBOT_LOCAL_SINK_DIR: join(root, "sink"),
    REVIEWBOT_DASHBOARD_PASSWORD: PASSWORD,
  });
  const listening = JSON.parse(await api.waitForLog(/"api listening"/)) as { port: number };
  apiUrl = `http://127.0.0.1:${listening.port}`;

  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  reviews = new Queue(REVIEW_QUEUE, { connection });
  jobId = (await enqueueReview(reviews, connection, DEFAULT_KEYSPACE, QueueSeal.fromSecret(WEBHOOK_SECRET), review)).jobId;
  await finishOneReview(redis.url, jobId);
  expect(await (await reviews.getJob(jobId))?.getState()).toBe("completed");

  foreign = await startPageServer(forgeryPages(apiUrl));
  browser = await launchHeadlessChromium({ loopbackHosts: [FOREIGN_HOST] });
  operator = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } });
});

afterAll(async () => {
  // Every step runs even when an earlier one throws, so nothing outlives a failed test.
  const steps: (() => Promise<unknown>)[] = [
    async () => browser?.close(),
    async () => foreign?.close(),
    async () => api?.stop("SIGKILL"),
    async () => reviews?.close(),
    async () => connection?.quit(),
    async () => redis?.stop(),
    async () => rm(root, { recursive: true, force: true }),
  ];
  for (const step of steps) await step().catch(() => undefined);
});

describe("dashboard in a browser", () => {
  it.each([
    ["no credentials", undefined, /ERR_INVALID_AUTH_CREDENTIALS/],
    ["a wrong password", { username: USER, password: `${PASSWORD}x` }, /^loaded$/],
  ])("refuses a browser with %s: 401 and no queue on the page", async (_name, httpCredentials, expected) => {
    const context = await requireBrowser().newContext(httpCredentials === undefined ? {} : { httpCredentials });
    try {
      const page = await context.newPage();
      const apiCalls: string[] = [];
      const documents: Response[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/admin/queues/api/")) apiCalls.push(request.url());
      });
      page.on("response", (response) => {
        if (response.url() === `${apiUrl}/admin/queues`) documents.push(response);
      });
      // Without credentials playwright cancels the Basic challenge and Chromium ends the
      // navigation with ERR_INVALID_AUTH_CREDENTIALS; with wrong ones it renders the 401 body.
      const navigation = await page.goto(`${apiUrl}/admin/queues`).then(
        () => "loaded",
        (err: unknown) => String(err),
      );
      expect(navigation).toMatch(expected);
      expect(documents.map((response) => response.status())).toEqual([401]);
      expect(documents[0]?.headers()["www-authenticate"]).toMatch(/^Basic realm="reviewbot"/);
      const body = await page.locator("body").innerText();
      expect(body).not.toMatch(/reviews|github|Bull Dashboard/i);
      expect(apiCalls).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the operator both queues and, on the completed tab of reviews, the finished job", async () => {
    const page = await operator.newPage();
    const overview = await page.goto(`${apiUrl}/admin/queues`);
    expect(overview?.status()).toBe(200);
    for (const queue of [REVIEW_QUEUE, GITHUB_QUEUE]) {
      await page.getByRole("link", { name: queue, exact: true }).first().waitFor({ state: "visible", timeout: 20_000 });
    }

    await page.goto(`${apiUrl}/admin/queues/queue/${REVIEW_QUEUE}?status=completed`);
    await page.getByText(jobId).first().waitFor({ state: "visible", timeout: 20_000 });
    const main = await page.locator("main").innerText();
    expect(main).toContain(jobId);
    expect(main).toContain("findings"); // the processor's return value, shown with the job
    expect(main).toContain(review.repository);

    const screenshot = join(root, "dashboard.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    const png = await readFile(screenshot);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.readUInt32BE(16)).toBeGreaterThan(0); // IHDR width
    expect(png.readUInt32BE(20)).toBeGreaterThan(0); // IHDR height
    expect(png.length).toBeGreaterThan(10_000);
    await page.close();
  });

  it.each([
    ["another site", () => `http://${FOREIGN_HOST}:${requireForeign().port}`],
    ["another port of the same host", () => `http://127.0.0.1:${requireForeign().port}`],
  ])("refuses a form POST forged by a page of %s with 403, even with the operator's credentials", async (_name, origin) => {
    const before = await requireReviews().getJobCounts();
    const refusedBefore = logLines("dashboard cross-origin request refused").length;
    const page = await operator.newPage();
    const forged = page.waitForResponse((response) => response.url() === `${apiUrl}/admin/queues/api/queues/${REVIEW_QUEUE}/add`);
    await page.goto(`${origin()}/form`);
    const response = await forged;
    expect(response.status()).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "POLICY_DENIED" } });
    // The guard runs after authentication: the forged request carried the operator's credentials.
    const refusals = logLines("dashboard cross-origin request refused").slice(refusedBefore);
    expect(refusals).toEqual([expect.objectContaining({ method: "POST", origin: origin() })]);
    expect(await requireReviews().getJobCounts()).toEqual(before);
    expect(await (await requireReviews().getJob(jobId))?.getState()).toBe("completed");
    await page.close();
  });

  it("refuses the preflight of a cross-site credentialed PUT, so the browser never sends it (no CORS opening)", async () => {
    const before = await requireReviews().getJobCounts();
    const page = await operator.newPage();
    await page.goto(`http://${FOREIGN_HOST}:${requireForeign().port}/fetch`);
    const result = page.locator("#result");
    await expect.poll(() => result.innerText(), { timeout: 20_000 }).not.toBe("pending");
    // Chromium preflights a cross-origin PUT; the preflight carries no credentials, gets 401,
    // and the PUT itself is never sent. (Were the API to answer the preflight with CORS headers,
    // the PUT would go out; the same-origin guard behind it is attacked by the form POSTs above
    // and by test/api/dashboard.test.ts.)
    expect(await result.innerText()).toBe("refused TypeError");
    expect(logLines("dashboard authentication failed").map((line) => line.path)).toContain(`/queues/api/queues/${REVIEW_QUEUE}/clean/completed`);
    expect(await requireReviews().getJobCounts()).toEqual(before);
    expect(await (await requireReviews().getJob(jobId))?.getState()).toBe("completed");
    await page.close();
  });

  it("lets the dashboard's own Clean all button remove the completed job", async () => {
    // bull-board's "Clean all" keeps jobs that finished in the last 5 s (its GRACE_TIME_MS).
    const finishedOn = (await requireReviews().getJob(jobId))?.finishedOn ?? Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, finishedOn + 5500 - Date.now())));
    const page = await operator.newPage();
    await page.goto(`${apiUrl}/admin/queues/queue/${REVIEW_QUEUE}?status=completed`);
    await page.getByText(jobId).first().waitFor({ state: "visible", timeout: 20_000 });
    await page.getByRole("button", { name: "Clean all" }).click();
    const cleaned = page.waitForResponse((response) => response.url().endsWith(`/api/queues/${REVIEW_QUEUE}/clean/completed`));
    await page.getByRole("button", { name: "Confirm" }).click();
    const response = await cleaned;
    expect(response.request().method()).toBe("PUT");
    expect(response.status()).toBe(200);
    expect(await requireReviews().getJob(jobId)).toBeUndefined();
    expect((await requireReviews().getJobCounts("completed")).completed).toBe(0);
    await page.close();
  });
});

/** Takes the one review off the queue with a real BullMQ worker and completes it with a small result. */
async function finishOneReview(redisUrl: string, expectedJobId: string): Promise<void> {
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker(REVIEW_QUEUE, (job: Job<ReviewJob>) => Promise.resolve({ headSha: job.data.headSha, findings: 0 }), {
    connection: workerConnection,
    autorun: false,
  });
  try {
    const completed = new Promise<void>((resolve, reject) => {
      worker.on("completed", (job) => {
        if (job.id === expectedJobId) resolve();
      });
      worker.on("failed", (_job, err) => {
        reject(err);
      });
    });
    void worker.run();
    await completed;
  } finally {
    await worker.close();
    workerConnection.disconnect();
  }
}

/** Pages of another origin that try to change the review queue with the operator's browser. */
function forgeryPages(target: string): Record<string, string> {
  const add = `${target}/admin/queues/api/queues/${REVIEW_QUEUE}/add`;
  const clean = `${target}/admin/queues/api/queues/${REVIEW_QUEUE}/clean/completed`;
  return {
    // A text/plain form POST is a "simple" request: no preflight, and the browser replays the
    // operator's Basic credentials. Without the same-origin guard it adds a job to the queue.
    "/form": `<!doctype html><form method="POST" action="${add}" enctype="text/plain">
      <input type="hidden" name='{"name":"forged","data":{"x":1},"pad":"' value='"}'></form>
      <script>document.forms[0].submit();</script>`,
    "/fetch": `<!doctype html><pre id="result">pending</pre><script>
      fetch(${JSON.stringify(clean)}, { method: "PUT", credentials: "include" })
        .then((r) => { document.getElementById("result").textContent = "status " + r.status; })
        .catch((e) => { document.getElementById("result").textContent = "refused " + e.name; });
    </script>`,
  };
}

/** The api's log lines with this message so far, parsed. */
function logLines(message: string): { method?: string; origin?: string; path?: string }[] {
  return (api?.logs() ?? "")
    .split("\n")
    .filter((line) => line.includes(`"msg":"${message}"`))
    .map((line) => JSON.parse(line) as { method?: string; origin?: string; path?: string });
}

function requireBrowser(): Browser {
  if (browser === undefined) throw new Error("the browser did not start");
  return browser;
}

function requireReviews(): Queue {
  if (reviews === undefined) throw new Error("the review queue is not open");
  return reviews;
}

function requireForeign(): PageServer {
  if (foreign === undefined) throw new Error("the foreign page server did not start");
  return foreign;
}
