import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./api-harness.js";

const credentials = { user: "operator", password: "correct horse battery staple" };
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

let api: ApiHarness;
let disabled: ApiHarness;

beforeAll(async () => {
  api = await startApi({ dashboard: credentials });
  disabled = await startApi({ dashboard: null });
});
afterAll(async () => {
  await api.close();
  await disabled.close();
});

describe("dashboard", () => {
  it("asks for credentials with 401 and a Basic challenge", async () => {
    const res = await fetch(`${api.url}/admin/queues`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm="reviewbot"/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it.each([
    ["a wrong password", basic(credentials.user, "correct horse battery stapler")],
    ["a wrong user", basic("admin", credentials.password)],
  ])("refuses %s with 401", async (_name, authorization) => {
    expect((await fetch(`${api.url}/admin/queues`, { headers: { authorization } })).status).toBe(401);
  });

  it("serves bull-board for both queues to the operator, framed by nobody and cached nowhere", async () => {
    const authorization = basic(credentials.user, credentials.password);
    const page = await fetch(`${api.url}/admin/queues`, { headers: { authorization } });
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain("<html");
    const queues = await fetch(`${api.url}/admin/queues/api/queues?activeQueue=reviews&status=latest&page=1`, { headers: { authorization } });
    expect(queues.status).toBe(200);
    const names = ((await queues.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name).sort();
    expect(names).toEqual(["github", "reviews"]);
  });

  it("refuses a cross-origin POST with 403 even with credentials, and nothing changes", async () => {
    const authorization = basic(credentials.user, credentials.password);
    await api.reviews.add("probe", { probe: true }, { jobId: "probe-1" });
    const forged = await fetch(`${api.url}/admin/queues/api/queues/reviews/clean/waiting`, {
      method: "PUT",
      headers: { authorization, origin: "https://evil.example" },
    });
    expect(forged.status).toBe(403);
    const noOrigin = await fetch(`${api.url}/admin/queues/api/queues/reviews/pause`, { method: "PUT", headers: { authorization } });
    expect(noOrigin.status).toBe(403);
    expect(await api.reviews.isPaused()).toBe(false);
    expect(await api.reviews.getJob("probe-1")).toBeDefined();
  });

  it("lets a same-origin state change through", async () => {
    const authorization = basic(credentials.user, credentials.password);
    const res = await fetch(`${api.url}/admin/queues/api/queues/reviews/pause`, {
      method: "PUT",
      headers: { authorization, origin: api.url },
    });
    expect(res.status).toBe(200);
    expect(await api.reviews.isPaused()).toBe(true);
    await api.reviews.resume();
  });

  it("is off, not open, when no password is configured", async () => {
    const res = await fetch(`${disabled.url}/admin/queues`, { headers: { authorization: basic("admin", "") } });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("<html");
  });
});
