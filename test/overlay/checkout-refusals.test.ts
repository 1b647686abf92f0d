import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectAppError, forkRequest, jobEntries, openCache } from "../support/clone-cache-harness.js";
import { createUpstream } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();

async function fixture(label: string, allowedProtocols: readonly string[] = ["file"]) {
  const root = await tempDir(label);
  const upstream = createUpstream(root);
  const forkSha = upstream.commitOn("fork", (tree) => {
    tree.write("src/pr.ts", "export const pr = 1;\n");
  });
  const cacheRoot = join(root, "cache");
  const cache = await openCache(cacheRoot, { allowedProtocols });
  return { root, upstream, forkSha, cacheRoot, cache };
}

describe("checkouts that must be refused", () => {
  it("a head that moved since the event (force-push) is HEAD_SHA_MISMATCH, with nothing left behind", async () => {
    const { upstream, forkSha, cacheRoot, cache } = await fixture("sha-mismatch");
    const pushedLater = upstream.commitOn("fork", (tree) => {
      tree.write("src/pr.ts", "export const pr = 2;\n");
    });

    const error = await expectAppError(
      cache.checkout({ remote: upstream.dir, head: { ref: "fork", sha: forkSha }, base: { ref: "main" } }),
      "HEAD_SHA_MISMATCH",
    );

    expect(error.message).toContain(forkSha);
    expect(error.message).toContain(pushedLater);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  it("a base SHA that exists only in the fork is not accepted as the trusted base", async () => {
    const { upstream, forkSha, cacheRoot, cache } = await fixture("base-from-fork");

    const error = await expectAppError(
      cache.checkout({ remote: upstream.dir, head: { ref: "fork", sha: forkSha }, base: { ref: "main", sha: forkSha } }),
      "REF_NOT_FOUND",
    );

    expect(error.message).toContain(`base ${forkSha} is not in the history of main`);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  it("an older commit of main is accepted as base", async () => {
    const { upstream, cache } = await fixture("base-older");
    const oldBase = upstream.rev("main");
    upstream.commitOn("main", (tree) => {
      tree.write("src/later.ts", "later\n");
    });

    const co = await cache.checkout({ remote: upstream.dir, head: { ref: "fork" }, base: { ref: "main", sha: oldBase } });

    expect(co.baseSha).toBe(oldBase);
    expect(co.overlay.commit).toEqual({ from: "base", ref: "main", sha: oldBase });
    await co.release();
  });

  it("an unknown head ref is REF_NOT_FOUND", async () => {
    const { upstream, cacheRoot, cache } = await fixture("unknown-ref");

    const error = await expectAppError(cache.checkout({ remote: upstream.dir, head: { ref: "refs/pull/404/head" }, base: { ref: "main" } }), "REF_NOT_FOUND");

    expect(error.message).toMatch(/refs\/pull\/404\/head/);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  const hostileRefs = ["--upload-pack=touch /tmp/x", "-fork", "main..fork", "fork@{1}", "fork branch", "refs/heads/.hidden", "main.lock", "a\nb", ""];

  it.each(hostileRefs)("ref %j is POLICY_DENIED before git runs", async (ref) => {
    const { upstream, cacheRoot, cache } = await fixture("bad-ref");

    for (const request of [
      { head: { ref }, base: { ref: "main" } },
      { head: { ref: "fork" }, base: { ref } },
    ]) {
      const error = await expectAppError(cache.checkout({ remote: upstream.dir, ...request }), "POLICY_DENIED");
      expect(error.message).toMatch(/(head|base)\.ref/);
    }
    expect(readdirSync(join(cacheRoot, "mirrors"))).toEqual([]);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  it.each(["abc123", "F".repeat(40), `${"a".repeat(40)} `])("head.sha %j that is not a full lowercase SHA is POLICY_DENIED", async (sha) => {
    const { upstream, cacheRoot, cache } = await fixture("bad-sha");

    await expectAppError(cache.checkout({ remote: upstream.dir, head: { ref: "fork", sha }, base: { ref: "main" } }), "POLICY_DENIED");

    expect(readdirSync(join(cacheRoot, "mirrors"))).toEqual([]);
  });

  const hostileRemotes: readonly (readonly [string, string, RegExp])[] = [
    ["ext:: transport", "ext::sh -c touch% /tmp/pwned", /protocol "ext" is not allowed/],
    ["credentials in the URL", "https://user:s3cr3t-token@example.com/o/r.git", /credentials must not be embedded/],
    ["a protocol outside the allowlist", "http://127.0.0.1:9/o/r.git", /protocol "http" is not allowed/],
    ["ssh", "ssh://git@example.com/o/r.git", /protocol "ssh" is not allowed/],
    ["a relative path", "../upstream", /neither a URL nor an absolute path/],
    ["a newline", "file:///tmp/x\n--upload-pack=touch", /NUL or newline/],
  ];

  it.each(hostileRemotes)("remote with %s is POLICY_DENIED", async (_name, remote, message) => {
    const { cacheRoot, cache } = await fixture("bad-remote", ["file", "https"]);

    const error = await expectAppError(cache.checkout({ remote, head: { ref: "fork" }, base: { ref: "main" } }), "POLICY_DENIED");

    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("s3cr3t-token");
    expect(readdirSync(join(cacheRoot, "mirrors"))).toEqual([]);
  });

  it("a file remote is refused by a cache that allows only https", async () => {
    const root = await tempDir("https-only");
    const upstream = createUpstream(root);
    const cache = await openCache(join(root, "cache"), { allowedProtocols: ["https"] });

    const error = await expectAppError(cache.checkout(forkRequest(upstream)), "POLICY_DENIED");

    expect(error.message).toMatch(/protocol "file" is not allowed/);
  });
});
