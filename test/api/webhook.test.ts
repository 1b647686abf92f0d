import { readFileSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryKey } from "@reviewbot/api/webhooks/delivery-ledger";
import { openGitHubTask } from "@reviewbot/queue/queued-github-task";
import { sendWebhook, signBody } from "../support/webhook-client.js";
import { MAX_BYTES, SEAL, SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { commentPayload, deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

let api: ApiHarness;
let hook: string;

beforeAll(async () => {
  api = await startApi();
  hook = `${api.url}/api/github/webhooks`;
});
afterAll(async () => {
  await api.close();
});

async function jobCount(): Promise<number> {
  const counts = await api.reviews.getJobCounts("waiting", "prioritized", "active", "delayed");
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

function refusals(code: string): Record<string, unknown>[] {
  return api.logs.filter((line) => line.msg === "webhook refused" && line.code === code);
}

/** Sends raw bytes with exactly the headers given (no signing), for requests fetch cannot make. */
async function rawRequest(headers: Record<string, string>, chunks: Buffer[] = []): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(hook, { method: "POST", headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("error", (err) => {
      reject(err);
    });
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
    // The body is never finished on purpose: the server must answer without waiting for it.
    if (chunks.length === 0 && headers["content-length"] === undefined) req.end();
  });
}

describe("webhook signature", () => {
  it("accepts a correctly signed delivery with 202 and enqueues one review", async () => {
    const before = await jobCount();
    const res = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 10 }), secret: SECRET });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body)).toMatchObject({ status: "accepted", jobId: expect.stringMatching(/^review\.100\.10\./) as unknown });
    expect(await jobCount()).toBe(before + 1);
  });

  it.each([
    ["missing", { "x-hub-signature-256": undefined }],
    ["wrong", { "x-hub-signature-256": signBody("another-secret-entirely", "{}") }],
    ["sha1 only", { "x-hub-signature-256": undefined, "x-hub-signature": "sha1=0000000000000000000000000000000000000000" }],
  ])("refuses a %s signature with 401 and enqueues nothing", async (_name, headers) => {
    const before = await jobCount();
    const logged = refusals("WEBHOOK_SIGNATURE_INVALID").length;
    const res = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({ number: 11 }), secret: SECRET, headers });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "WEBHOOK_SIGNATURE_INVALID", message: expect.any(String) as unknown } });
    expect(await jobCount()).toBe(before);
    expect(refusals("WEBHOOK_SIGNATURE_INVALID")).toHaveLength(logged + 1);
  });

  it("refuses a body re-serialised with different whitespace (the signature covers the raw bytes)", async () => {
    const payload = pullRequestPayload({ number: 12 });
    const compact = JSON.stringify(payload);
    const pretty = JSON.stringify(payload, null, 2);
    const res = await sendWebhook(hook, {
      event: "pull_request",
      deliveryId: deliveryId(),
      body: pretty,
      secret: SECRET,
      headers: { "x-hub-signature-256": signBody(SECRET, compact) },
    });
    expect(res.status).toBe(401);
  });
});

describe("webhook framing", () => {
  // The headers without which no stranger's body is read: a well-formed signature, event and delivery id.
  const signedHeaders = { "x-hub-signature-256": signBody(SECRET, "not this body"), "x-github-event": "pull_request", "x-github-delivery": "framing-1" };

  it("answers 413 on a large Content-Length without reading the body", async () => {
    const res = await rawRequest({ "content-type": "application/json", ...signedHeaders, "content-length": String(MAX_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "WEBHOOK_TOO_LARGE" } });
  });

  it("answers 413 on a chunked body once it streams past the limit", async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const res = await rawRequest(
      { "content-type": "application/json", ...signedHeaders, "transfer-encoding": "chunked" },
      Array.from({ length: 6 }, () => chunk),
    );
    expect(res.status).toBe(413);
  });

  it.each([
    ["form-encoded", "application/x-www-form-urlencoded"],
    ["text", "text/plain"],
    ["json look-alike", "application/jsonp"],
  ])("answers 415 to a %s body", async (_name, contentType) => {
    const res = await sendWebhook(hook, {
      event: "ping",
      deliveryId: deliveryId(),
      body: { zen: "x" },
      secret: SECRET,
      headers: { "content-type": contentType },
    });
    expect(res.status).toBe(415);
  });

  it("accepts application/json with a charset", async () => {
    const res = await sendWebhook(hook, {
      event: "ping",
      deliveryId: deliveryId(),
      body: { zen: "x" },
      secret: SECRET,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(202);
  });

  it("answers 400 to a signed body that is not JSON", async () => {
    const res = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: '{"action": "opened",', secret: SECRET });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "WEBHOOK_MALFORMED" } });
  });

  it.each([
    ["no X-GitHub-Event", { "x-github-event": undefined }],
    ["no X-GitHub-Delivery", { "x-github-delivery": undefined }],
    ["a delivery id with a colon", { "x-github-delivery": "a:b" }],
  ])("answers 400 to %s", async (_name, headers) => {
    const res = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body: pullRequestPayload({}), secret: SECRET, headers });
    expect(res.status).toBe(400);
  });

  it("answers 400 to a signed payload whose used fields are invalid", async () => {
    const body = pullRequestPayload({ number: 13, head: "not-a-sha" });
    const res = await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
    expect(res.status).toBe(400);
    expect(res.body).toContain("headSha");
  });

  it("counts refusals by reason, with the unverified event kept out of the labels", async () => {
    await sendWebhook(hook, { event: "made_up_event", deliveryId: deliveryId(), body: {}, secret: "wrong-secret-value" });
    const text = await (await fetch(`${api.url}/metrics`)).text();
    expect(text).toMatch(/reviewbot_webhook_deliveries_total\{event="unverified",outcome="rejected",reason="WEBHOOK_SIGNATURE_INVALID"\} [1-9]/);
    expect(text).not.toContain("made_up_event");
  });
});

describe("delivery idempotency", () => {
  it("acknowledges a replayed delivery as a duplicate and enqueues it once", async () => {
    const id = deliveryId();
    const body = pullRequestPayload({ number: 20 });
    const first = await sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET });
    const before = await jobCount();
    const second = await sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(JSON.parse(second.body)).toEqual({ status: "duplicate" });
    expect(await jobCount()).toBe(before);
    expect(Number(await api.redisServer?.command("TTL", deliveryKey(DEFAULT_KEYSPACE, id)))).toBeGreaterThan(29 * 24 * 3600);
  });

  it("still knows the delivery after its job was removed from the queue", async () => {
    const id = deliveryId();
    const body = pullRequestPayload({ number: 21 });
    const first = JSON.parse((await sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET })).body) as { jobId: string };
    await (await api.reviews.getJob(first.jobId))?.remove();
    const replay = await sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET });
    expect(JSON.parse(replay.body)).toEqual({ status: "duplicate" });
    expect(await api.reviews.getJob(first.jobId)).toBeUndefined();
  });

  it("makes concurrent copies of one delivery a single job", async () => {
    const id = deliveryId();
    const body = pullRequestPayload({ number: 22 });
    const before = await jobCount();
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendWebhook(hook, { event: "pull_request", deliveryId: id, body, secret: SECRET })));
    const statuses = answers.map((answer) => (JSON.parse(answer.body) as { status: string }).status);
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    expect(statuses.filter((status) => status === "accepted")).toHaveLength(1);
    expect(await jobCount()).toBe(before + 1);
  });
});

function realPayload(file: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../apps/api/src/webhooks/fixtures/octokit-webhooks/${file}`, import.meta.url), "utf8"));
}

describe("event filter", () => {
  it.each([
    ["a draft", "pull_request", pullRequestPayload({ number: 30, draft: true }), "draft"],
    ["a closed PR", "pull_request", pullRequestPayload({ number: 30, action: "synchronize", state: "closed" }), "closed"],
    ["a Bot author", "pull_request", pullRequestPayload({ number: 30, user: { login: "dependabot[bot]", type: "Bot" } }), "bot_author"],
    ["a listed bot login", "pull_request", pullRequestPayload({ number: 30, user: { login: "renovate-bot", type: "User" } }), "bot_author"],
    ["an edited PR", "pull_request", pullRequestPayload({ number: 30, action: "edited" }), "action_not_handled"],
    ["the command from a contributor", "issue_comment", commentPayload("/review", "CONTRIBUTOR"), "author_not_trusted"],
    ["a comment that is not the command", "issue_comment", commentPayload("LGTM", "OWNER"), "not_the_command"],
    ["a push", "push", { ref: "refs/heads/main" }, "event_not_handled"],
    ["an event named with digits", "projects_v2_item", { action: "edited", projects_v2_item: { id: 1 } }, "event_not_handled"],
    // GitHub's own example delivery (apps/api/src/webhooks/fixtures/octokit-webhooks/SOURCES.md).
    ["a real projects_v2_item delivery", "projects_v2_item", realPayload("projects_v2_item.edited.payload.json"), "event_not_handled"],
  ])("ignores %s with 202 and a reason", async (_name, event, body, reason) => {
    const before = await jobCount();
    const tasksBefore = await api.github.count();
    const res = await sendWebhook(hook, { event, deliveryId: deliveryId(), body, secret: SECRET });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body)).toEqual({ status: "ignored", reason });
    expect(await jobCount()).toBe(before);
    expect(await api.github.count()).toBe(tasksBefore);
  });

  it("turns the command from a member into a resolve task on the github queue", async () => {
    const id = deliveryId();
    const res = await sendWebhook(hook, { event: "issue_comment", deliveryId: id, body: commentPayload("/review\nthanks", "MEMBER"), secret: SECRET });
    expect(res.status).toBe(202);
    const job = await api.github.getJob(`resolve.${id}`);
    // Sealed by the api: what the publisher opens is exactly the resolve task.
    expect(openGitHubTask(SEAL, `resolve.${id}`, job?.data)).toEqual({
      kind: "resolve",
      installationId: 7,
      repositoryId: 100,
      repository: "octo/hello",
      pullNumber: 1,
      deliveryId: id,
      trigger: "issue_comment",
    });
    expect(job?.opts.attempts).toBe(8);
  });

  it("answers a ping with 202", async () => {
    const res = await sendWebhook(hook, { event: "ping", deliveryId: deliveryId(), body: { zen: "Design for failure.", hook_id: 1 }, secret: SECRET });
    expect(res.status).toBe(202);
  });
});

describe("supersession", () => {
  it("removes the PR's waiting job when a newer synchronize arrives", async () => {
    const first = await sendWebhook(hook, {
      event: "pull_request",
      deliveryId: deliveryId(),
      body: pullRequestPayload({ number: 40, action: "synchronize", head: headSha(401) }),
      secret: SECRET,
    });
    const second = await sendWebhook(hook, {
      event: "pull_request",
      deliveryId: deliveryId(),
      body: pullRequestPayload({ number: 40, action: "synchronize", head: headSha(402) }),
      secret: SECRET,
    });
    const firstId = (JSON.parse(first.body) as { jobId: string }).jobId;
    const secondId = (JSON.parse(second.body) as { jobId: string }).jobId;
    expect(await api.reviews.getJob(firstId)).toBeUndefined();
    const live = await api.reviews.getJob(secondId);
    expect(live?.data).toMatchObject({ pullNumber: 40, headSha: headSha(402) });
    expect(api.logs.find((line) => line.jobId === secondId && line.msg === "webhook acknowledged")).toMatchObject({ removed: firstId });
  });
});
