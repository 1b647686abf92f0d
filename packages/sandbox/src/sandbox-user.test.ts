import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPasswdEntry, resolveSandboxUser } from "./sandbox-user.js";

const PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "reviewbot-sandbox:x:999:995::/home/reviewbot-sandbox:/usr/sbin/nologin",
  "rootgroup:x:998:0::/:/usr/sbin/nologin",
  "uidzero:x:0:994::/:/usr/sbin/nologin",
  "broken:x:abc:1::/:/usr/sbin/nologin",
  "",
].join("\n");

describe("findPasswdEntry", () => {
  it.each([
    ["reviewbot-sandbox", { uid: 999, gid: 995 }],
    ["root", { uid: 0, gid: 0 }],
    ["reviewbot", undefined],
    ["broken", undefined],
    ["", undefined],
  ])("finds %j", (name, expected) => {
    expect(findPasswdEntry(PASSWD, name)).toEqual(expected);
  });
});

describe("resolveSandboxUser", () => {
  let dir: string;
  let passwd: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reviewbot-passwd-"));
    passwd = join(dir, "passwd");
    await writeFile(passwd, PASSWD);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const root = { uid: 0, euid: 0, gid: 0 };

  it("switches a root worker to the configured user", async () => {
    await expect(resolveSandboxUser("reviewbot-sandbox", root, passwd)).resolves.toEqual({ uid: 999, gid: 995, switchUser: true });
  });

  it("treats a worker with effective uid 0 as root", async () => {
    const ids = { uid: 1000, euid: 0, gid: 1000 };
    await expect(resolveSandboxUser("reviewbot-sandbox", ids, passwd)).resolves.toMatchObject({ uid: 999, switchUser: true });
  });

  it("runs a non-root worker as itself", async () => {
    const ids = { uid: 1000, euid: 1000, gid: 1000 };
    await expect(resolveSandboxUser("reviewbot-sandbox", ids, passwd)).resolves.toEqual({ uid: 1000, gid: 1000, switchUser: false });
  });

  it.each([
    ["a missing user", "nobody-here", root, /not in .*passwd; create it: useradd --system/],
    ["a user with uid 0", "uidzero", root, /refusing root/],
    ["a user with gid 0", "rootgroup", root, /refusing root/],
    ["the root user itself", "root", root, /refusing root/],
    ["a non-root worker in group 0", "reviewbot-sandbox", { uid: 1000, euid: 1000, gid: 0 }, /refusing root/],
  ])("refuses %s", async (_label, name, ids, message) => {
    await expect(resolveSandboxUser(name, ids, passwd)).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE", message: expect.stringMatching(message) as unknown });
  });
});
