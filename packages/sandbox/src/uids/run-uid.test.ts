import { describe, expect, it } from "vitest";
import { AppError } from "@reviewbot/core/errors";
import { DaemonUidNames } from "./daemon-uid-names.js";
import { createAsRunUid, type RunUids } from "./run-uid.js";

const names = (handsOverMounts = true): RunUids => ({ kind: "daemon-names", names: new DaemonUidNames({ first: 700_000_000, count: 3 }, handsOverMounts) });

/** A daemon whose names in `taken` are held, answering as `refuse` says; records every create. */
function daemon(taken: Set<string>, refuse: (name: string) => Error) {
  const created: { user: string; name: string | undefined }[] = [];
  const create = (user: string, name: string | undefined): Promise<string> => {
    if (name !== undefined && taken.has(name)) return Promise.reject(new AppError("SANDBOX_UNAVAILABLE", "could not create", { cause: refuse(name) }));
    created.push({ user, name });
    return Promise.resolve(`container of ${user}`);
  };
  return { create, created };
}

const conflict = (): Error => Object.assign(new Error("(HTTP code 409) unexpected - Conflict"), { statusCode: 409 });
// What Podman 4.3's compat API answered on this host.
const podmanInUse = (name: string): Error =>
  Object.assign(
    new Error(
      `(HTTP code 500) server error - container create: creating container storage: the container name "${name}" is already in use by 9c46. You have to remove that container to be able to reuse that name: that name is already in use`,
    ),
    { statusCode: 500 },
  );

describe("createAsRunUid through daemon names", () => {
  it.each([
    ["Docker's 409", conflict],
    ["Podman's 500 naming it", podmanInUse],
  ])("skips a name the daemon holds (%s) and runs as the next uid", async (_, refuse) => {
    const all = ["reviewbot-uid-700000000", "reviewbot-uid-700000001", "reviewbot-uid-700000002"];
    const { create, created } = daemon(new Set(all.slice(0, 2)), refuse);
    const { uid } = await createAsRunUid(names(), false, create);
    expect(uid).toMatchObject({ uid: 700_000_002, gid: 700_000_002, own: true });
    expect(created).toEqual([{ user: "700000002:700000002", name: "reviewbot-uid-700000002" }]);
  });

  it("fails closed, naming the range, when every name is held", async () => {
    const { create } = daemon(new Set(["reviewbot-uid-700000000", "reviewbot-uid-700000001", "reviewbot-uid-700000002"]), conflict);
    await expect(createAsRunUid(names(), false, create)).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      message: expect.stringContaining("no free sandbox uid in 700000000-700000002") as unknown,
    });
  });

  it("does not take another failure, or a 500 about another name, for a held name", async () => {
    const taken = new Set(["reviewbot-uid-700000000", "reviewbot-uid-700000001", "reviewbot-uid-700000002"]);
    const { create, created } = daemon(taken, () => podmanInUse("some-other-container"));
    await expect(createAsRunUid(names(), false, create)).rejects.toMatchObject({ message: "could not create" });
    expect(created).toEqual([]);
  });

  it("refuses a writable-mount run when the worker cannot hand the mount over, rather than share uid 10001", async () => {
    const { create, created } = daemon(new Set(), conflict);
    await expect(createAsRunUid(names(false), true, create)).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringContaining("writable mount") as unknown,
    });
    expect(created).toEqual([]);
    // Negative control: the same worker runs read-only runs as uids of their own.
    await expect(createAsRunUid(names(false), false, create)).resolves.toMatchObject({ uid: { own: true } });
  });

  it("refuses a writable-mount run with no source of uids, and runs a read-only one as the shared 10001", async () => {
    const { create, created } = daemon(new Set(), conflict);
    await expect(createAsRunUid(undefined, true, create)).rejects.toMatchObject({ code: "POLICY_DENIED" });
    await expect(createAsRunUid(undefined, false, create)).resolves.toMatchObject({ uid: { uid: 10001, own: false } });
    expect(created).toEqual([{ user: "10001:10001", name: undefined }]);
  });
});
