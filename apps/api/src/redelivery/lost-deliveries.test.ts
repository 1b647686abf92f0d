import { describe, expect, it } from "vitest";
import type { HookDelivery } from "./hook-deliveries.js";
import { lostDeliveries, succeeded } from "./lost-deliveries.js";

let nextId = 1;
function delivery(guid: string, statusCode: number, redelivery = false): HookDelivery {
  return {
    id: nextId++,
    guid,
    delivered_at: "2026-11-27T10:00:00Z",
    redelivery,
    status: statusCode === 0 ? "failed to connect" : `HTTP ${String(statusCode)}`,
    status_code: statusCode,
    event: "pull_request",
    action: "opened",
    installation_id: 1,
    repository_id: 2,
  };
}

describe("succeeded", () => {
  it.each([
    [200, true],
    [202, true],
    [299, true],
    [0, false],
    [199, false],
    [300, false],
    [408, false],
    [503, false],
  ])("status %i → %s", (statusCode, expected) => {
    expect(succeeded({ status_code: statusCode })).toBe(expected);
  });
});

describe("lostDeliveries", () => {
  it("keeps one entry per failed guid, its newest attempt (listed first)", () => {
    const newer = delivery("a", 503, true);
    const older = delivery("a", 0);
    expect(lostDeliveries([newer, older])).toEqual([newer]);
  });

  it("drops a guid any of whose attempts succeeded, first or redelivered", () => {
    const listing = [delivery("a", 202, true), delivery("a", 503), delivery("b", 503, true), delivery("b", 202)];
    expect(lostDeliveries(listing)).toEqual([]);
  });

  it("keeps the order of GitHub's listing and leaves delivered ones out", () => {
    const c = delivery("c", 500);
    const b = delivery("b", 0);
    expect(lostDeliveries([c, delivery("x", 202), b]).map((d) => d.guid)).toEqual(["c", "b"]);
  });
});
