import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook, signBody } from "../support/webhook-client.js";
import { INSTALLATION_ID, SECRET, startFleet, type Fleet } from "./fleet-harness.js";

const REPOSITORY = "octo/deliveries";
const REPOSITORY_ID = 9101;
const MAX_BYTES = 4096;

let fleet: Fleet;

beforeAll(async () => {
  // No worker: what the api accepted stays in the queue where the test can count it.
  fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID }, workers: 0, apiEnv: { REVIEWBOT_WEBHOOK_MAX_BYTES: String(MAX_BYTES) } });
}, 120_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

/** A `pull_request` delivery that would be reviewed if it got through: every refusal below is the api's doing. */
function openedEvent(head: string, padding = ""): Record<string, unknown> {
  return {
    action: "opened",
    installation: { id: INSTALLATION_ID },
    repository: { id: REPOSITORY_ID, full_name: REPOSITORY, default_branch: "main" },
    pull_request: {
      number: 3,
      state: "open",
      draft: false,
      updated_at: new Date().toISOString(),
      user: { login: "contributor", type: "User" },
      head: { sha: head, ref: "fork" },
      base: { sha: "b".repeat(40), ref: "main" },
      body: padding,
    },
  };
}

const sha = (): string => randomUUID().replaceAll("-", "").padEnd(40, "0");
const url = (): string => `${fleet.apiUrl}/api/github/webhooks`;

/** Every job in both queues (any state), by id. */
async function allJobIds(): Promise<string[]> {
  const states = ["waiting", "prioritized", "active", "completed", "failed", "delayed", "waiting-children", "paused"] as const;
  const jobs = [...(await fleet.reviews.getJobs([...states])), ...(await fleet.tasks.getJobs([...states]))];
  return jobs.map((job) => job.id ?? "").sort();
}

/** The api's log lines (parsed) that mention `deliveryId`. */
function apiLines(deliveryId: string): Record<string, unknown>[] {
  return fleet.api
    .logs()
    .split("\n")
    .filter((line) => line.includes(deliveryId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function rejectedCount(reason: string): Promise<number> {
  const text = await (await fetch(`${fleet.apiUrl}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("reviewbot_webhook_deliveries_total{") && l.includes('outcome="rejected"') && l.includes(`reason="${reason}"`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

describe("the webhook endpoint refuses what GitHub did not send, and accepts a delivery once", () => {
  it("accepts a replayed delivery once: one job, the copy acknowledged as a duplicate", async () => {
    const deliveryId = randomUUID();
    const body = openedEvent(sha());
    const before = await allJobIds();
    const first = await fleet.deliver("pull_request", body, deliveryId);
    const again = await fleet.deliver("pull_request", body, deliveryId);
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ status: "accepted" });
    expect(again.status).toBe(202);
    expect(JSON.parse(again.body)).toMatchObject({ status: "duplicate" });
    const added = (await allJobIds()).filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(added[0]).toContain(deliveryId);
    expect(await fleet.redis.command("EXISTS", `reviewbot:delivery:${deliveryId}`)).toBe("1");
  });

  // Each refused delivery: its status, its error code, and the request that carries the fault.
  const refusals: {
    name: string;
    status: number;
    code: string;
    send: (deliveryId: string) => Promise<{ status: number; body: string }>;
  }[] = [
    {
      name: "forged (signed with another secret)",
      status: 401,
      code: "WEBHOOK_SIGNATURE_INVALID",
      send: (deliveryId) => sendWebhook(url(), { event: "pull_request", deliveryId, body: openedEvent(sha()), secret: `${SECRET}-not` }),
    },
    {
      name: "unsigned",
      status: 401,
      code: "WEBHOOK_SIGNATURE_INVALID",
      send: (deliveryId) =>
        sendWebhook(url(), { event: "pull_request", deliveryId, body: openedEvent(sha()), secret: SECRET, headers: { "x-hub-signature-256": undefined } }),
    },
    {
      name: "oversized (Content-Length above REVIEWBOT_WEBHOOK_MAX_BYTES)",
      status: 413,
      code: "WEBHOOK_TOO_LARGE",
      send: (deliveryId) => sendWebhook(url(), { event: "pull_request", deliveryId, body: openedEvent(sha(), "x".repeat(2 * MAX_BYTES)), secret: SECRET }),
    },
    {
      name: "malformed JSON (correctly signed)",
      status: 400,
      code: "WEBHOOK_MALFORMED",
      send: (deliveryId) => sendWebhook(url(), { event: "pull_request", deliveryId, body: JSON.stringify(openedEvent(sha())).slice(0, -5), secret: SECRET }),
    },
    {
      name: "wrong content type (form-encoded, correctly signed)",
      status: 415,
      code: "WEBHOOK_CONTENT_TYPE",
      send: (deliveryId) =>
        sendWebhook(url(), {
          event: "pull_request",
          deliveryId,
          body: openedEvent(sha()),
          secret: SECRET,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        }),
    },
  ];

  it.each(refusals)("refuses a $name delivery with $status $code: nothing enqueued, the reason logged once", async ({ status, code, send }) => {
    const deliveryId = randomUUID();
    const before = await allJobIds();
    const countedBefore = await rejectedCount(code);
    const response = await send(deliveryId);
    expect(response.status).toBe(status);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code } });
    expect(await allJobIds()).toEqual(before);
    expect(await fleet.redis.command("EXISTS", `reviewbot:delivery:${deliveryId}`)).toBe("0");
    await expect.poll(() => apiLines(deliveryId).length).toBeGreaterThan(0);
    // Give a second (duplicate) log line the chance to appear before counting.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = apiLines(deliveryId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: "webhook refused", code, deliveryId });
    expect(await rejectedCount(code)).toBe(countedBefore + 1);
  });

  it("accepts two concurrent copies of one delivery once: one job, one accepted and one duplicate", async () => {
    const deliveryId = randomUUID();
    const body = openedEvent(sha());
    const before = await allJobIds();
    const copies = await Promise.all([fleet.deliver("pull_request", body, deliveryId), fleet.deliver("pull_request", body, deliveryId)]);
    expect(copies.map((copy) => copy.status)).toEqual([202, 202]);
    expect(copies.map((copy) => (JSON.parse(copy.body) as { status: string }).status).sort()).toEqual(["accepted", "duplicate"]);
    const added = (await allJobIds()).filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(added[0]).toContain(deliveryId);
    // The copy must not have superseded (removed) the job it is a copy of.
    expect(await fleet.reviews.getJobState(added[0] ?? "")).not.toBe("unknown");
  });

  it("refuses an oversized chunked delivery (no Content-Length) with 413, nothing enqueued", async () => {
    const deliveryId = randomUUID();
    const raw = JSON.stringify(openedEvent(sha(), "y".repeat(4 * MAX_BYTES)));
    const before = await allJobIds();
    const chunks = [raw.slice(0, 1000), raw.slice(1000)].map((part) => new TextEncoder().encode(part));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const response = await fetch(url(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": deliveryId,
        "x-hub-signature-256": signBody(SECRET, raw),
      },
      body: stream,
      duplex: "half",
    }).catch((err: unknown) => ({ status: -1, text: () => Promise.resolve(String(err)) }));
    expect(response.status).toBe(413);
    expect(await allJobIds()).toEqual(before);
    await expect.poll(() => apiLines(deliveryId).length).toBe(1);
    expect(apiLines(deliveryId)[0]).toMatchObject({ msg: "webhook refused", code: "WEBHOOK_TOO_LARGE" });
  });

  it("still accepts a good delivery after the refusals (the connection-closing ones left the server healthy)", async () => {
    const response = await fleet.deliver("pull_request", openedEvent(sha()));
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({ status: "accepted" });
  });
});
