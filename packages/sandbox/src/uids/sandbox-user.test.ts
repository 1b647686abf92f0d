import { describe, expect, it } from "vitest";
import { isRootWorker, sandboxUserFor } from "./sandbox-user.js";

const root = { uid: 0, euid: 0, gid: 0 };
const lease = { uid: 700_000_007, gid: 700_000_007 };

describe("sandboxUserFor", () => {
  it("switches a root worker to the run's leased uid", () => {
    expect(sandboxUserFor(lease, root)).toEqual({ ...lease, switchUser: true });
  });

  it("treats a worker with effective uid 0 as root", () => {
    const ids = { uid: 1000, euid: 0, gid: 1000 };
    expect(isRootWorker(ids)).toBe(true);
    expect(sandboxUserFor(lease, ids)).toMatchObject({ uid: lease.uid, switchUser: true });
  });

  it("runs a non-root worker as itself, lease or not", () => {
    const ids = { uid: 1000, euid: 1000, gid: 1000 };
    expect(isRootWorker(ids)).toBe(false);
    expect(sandboxUserFor(undefined, ids)).toEqual({ uid: 1000, gid: 1000, switchUser: false });
  });

  it.each([
    ["a root worker without a lease", undefined, root, /none was leased/],
    ["a lease of uid 0", { uid: 0, gid: 5 }, root, /refusing root/],
    ["a lease of gid 0", { uid: 5, gid: 0 }, root, /refusing root/],
    ["a non-root worker in group 0", undefined, { uid: 1000, euid: 1000, gid: 0 }, /refusing root/],
  ])("refuses %s", (_label, given, ids, message) => {
    expect(() => sandboxUserFor(given, ids)).toThrow(
      expect.objectContaining({ code: "SANDBOX_UNAVAILABLE", message: expect.stringMatching(message) as unknown }),
    );
  });
});
