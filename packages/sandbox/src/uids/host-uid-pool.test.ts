import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostUidPool, type HostIdFiles } from "./host-uid-pool.js";

let dir: string;
let files: HostIdFiles;
// Each test its own namespace, so that no two tests (or a worker on this host) share leases.
let namespaces = 0;
const namespace = (): string => `reviewbot-test-${String(process.pid)}-${String((namespaces += 1))}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "reviewbot-uids-"));
  files = { passwd: join(dir, "passwd"), group: join(dir, "group"), subuid: join(dir, "subuid"), subgid: join(dir, "subgid") };
  await writeFile(files.passwd, "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\nfar:x:900000:900000::/:/bin/sh\n");
  await writeFile(files.group, "root:x:0:\nwheel:x:800100:alice\n");
  await writeFile(files.subuid, "alice:100000:65536\n");
  await writeFile(files.subgid, "alice:100000:65536\nbob:500000:1000\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("HostUidPool leases", () => {
  it("hands runs in flight distinct uids, refuses past the range, and takes a released uid back", async () => {
    const pool = await HostUidPool.create({ first: 700_000_000, count: 2 }, files, namespace());
    const [a, b] = [await pool.acquire(), await pool.acquire()];
    expect(new Set([a.uid, b.uid])).toEqual(new Set([700_000_000, 700_000_001]));
    expect(a.gid).toBe(a.uid);
    await expect(pool.acquire()).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      message: expect.stringContaining("700000000-700000001 is held") as unknown,
    });
    await a.release();
    await expect(pool.acquire()).resolves.toMatchObject({ uid: a.uid });
    await b.release();
  });

  it("never hands out a uid another process holds, and gets it back when that process dies (no stale lease)", async () => {
    const shared = namespace();
    const name = `\\0${shared}-700000000`;
    const holder = spawn(process.execPath, ["-e", `require("net").createServer().listen("${name}", () => console.log("held"))`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await once(holder.stdout, "data");
    const pool = await HostUidPool.create({ first: 700_000_000, count: 2 }, files, shared);
    const first = await pool.acquire();
    expect(first.uid).toBe(700_000_001);
    await expect(pool.acquire()).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
    holder.kill("SIGKILL");
    await once(holder, "exit");
    await expect(pool.acquire()).resolves.toMatchObject({ uid: 700_000_000 });
    await first.release();
  });
});

describe("HostUidPool ranges", () => {
  it("accepts a range that overlaps nothing on the host (the control)", async () => {
    await expect(HostUidPool.create({ first: 700_000_000, count: 65_536 }, files, namespace())).resolves.toBeInstanceOf(HostUidPool);
  });

  it.each([
    ["uid 0", { first: 0, count: 10 }, /holds uid 0/],
    ["a login user", { first: 999, count: 2 }, /holds id 1000 of alice in .*passwd/],
    ["a user far up", { first: 899_999, count: 5 }, /holds id 900000 of far/],
    ["a group", { first: 800_000, count: 1000 }, /holds id 800100 of wheel in .*group/],
    ["a rootless user's subordinate uids", { first: 165_000, count: 1000 }, /overlaps alice's subordinate ids 100000\+65536 in .*subuid/],
    ["subordinate gids only", { first: 500_999, count: 10 }, /overlaps bob's subordinate ids 500000\+1000 in .*subgid/],
    ["an empty range", { first: 700_000_000, count: 0 }, /not a range/],
    ["a range past the last uid", { first: 4_294_967_290, count: 10 }, /ends past uid/],
  ])("refuses a range holding %s", async (_label, range, message) => {
    await expect(HostUidPool.create(range, files, namespace())).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      message: expect.stringMatching(message) as unknown,
    });
  });
});
