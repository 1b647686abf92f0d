import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { spawnCheckoutChild, type AfterCheckout } from "../support/checkout-child.js";
import { expectAppError, forkRequest, jobEntries, mirrorJobRefs, onlyMirror, openCache } from "../support/clone-cache-harness.js";
import { createUpstream } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";
import { expectAiMatchesBase } from "../support/worktree-assertions.js";

const tempDir = useTempDirs();

/**
 * Ages a lock as if its holder had stopped refreshing it `seconds` ago. proper-lockfile judges
 * staleness by the lock directory's mtime (stale after 15 s, cache-lock.ts), so this stands in for
 * waiting out the stale period, which would add 15 s to every run.
 */
function ageLock(path: string, seconds: number): void {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(`${path}.lock`, then, then);
}

describe("clone cache under concurrency", () => {
  it("six parallel checkouts of different PRs from one cache each get their own tree", async () => {
    const root = await tempDir("parallel");
    const upstream = createUpstream(root);
    const prs = Array.from({ length: 6 }, (_, i) => {
      upstream.git(["branch", `pr${i}`, "main"]);
      return upstream.commitOn(`pr${i}`, (tree) => {
        tree.write("src/pr.ts", `export const pr = ${i};\n`);
      });
    });
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);

    const checkouts = await Promise.all(
      prs.map((sha, i) => cache.checkout({ remote: upstream.dir, head: { ref: `pr${i}`, sha }, base: { ref: "main" }, label: `pr${i}` })),
    );

    checkouts.forEach((co, i) => {
      expect(co.headSha).toBe(prs[i]);
      expect(readFileSync(join(co.dir, "src/pr.ts"), "utf8")).toBe(`export const pr = ${i};\n`);
      expect(co.diff.files.map((file) => file.path)).toEqual(["src/pr.ts"]);
      expectAiMatchesBase(upstream, "main", co.dir);
    });
    expect(new Set(checkouts.map((co) => co.dir)).size).toBe(6);
    await Promise.all(checkouts.map((co) => co.release()));
    expect(await jobEntries(cacheRoot)).toEqual([]);
    expect(mirrorJobRefs(await onlyMirror(cacheRoot), upstream.home)).toEqual([]);
  });

  it("three worker processes and this one share a cache root at the same time", async () => {
    const root = await tempDir("processes");
    const upstream = createUpstream(root);
    const headSha = upstream.commitOn("fork", (tree) => {
      tree.write("src/pr.ts", "export const fromFork = true;\n");
    });
    const cacheRoot = join(root, "cache");
    const children = Array.from({ length: 3 }, () => spawnCheckoutChild({ root: cacheRoot, remote: upstream.dir, after: "release" }));
    const cache = await openCache(cacheRoot);

    const local = await cache.checkout({ remote: upstream.dir, head: { ref: "fork", sha: headSha }, base: { ref: "main" } });
    const reports = await Promise.all(children.map((child) => child.report));
    const exits = await Promise.all(children.map((child) => child.exited));

    expect(exits).toEqual([0, 0, 0]);
    for (const report of reports) {
      expect(report.headSha).toBe(headSha);
      expect(report.files).toContain("src/pr.ts");
      expect(report.files).toContain(".ai/review-tools.json");
      expect(existsSync(report.dir)).toBe(false);
    }
    expect(readFileSync(join(local.dir, "src/pr.ts"), "utf8")).toBe("export const fromFork = true;\n");
    await local.release();
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  /** Not exported by the package under that name. */
  type CollectReport = Awaited<ReturnType<CloneCache["collect"]>>;

  /** A cache at a fresh root, and a worker process that checked a PR out into it and then `after`. */
  async function jobOfChild(label: string, after: AfterCheckout) {
    const root = await tempDir(label);
    const upstream = createUpstream(root);
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);
    const child = spawnCheckoutChild({ root: cacheRoot, remote: upstream.dir, after });
    const report = await child.report;
    return { upstream, cacheRoot, cache, child, report, jobDir: join(cacheRoot, "jobs", report.id) };
  }

  async function expectJobGone(job: Awaited<ReturnType<typeof jobOfChild>>, collected: CollectReport): Promise<void> {
    expect(collected.removedJobs).toEqual([job.report.id]);
    expect(existsSync(job.jobDir)).toBe(false);
    expect(await jobEntries(job.cacheRoot)).toEqual([]);
    expect(mirrorJobRefs(await onlyMirror(job.cacheRoot), job.upstream.home)).toEqual([]);
  }

  it("a job whose process exited without release() is collected", async () => {
    const job = await jobOfChild("exited", "exit-without-release");
    expect(await job.child.exited).toBe(0);
    expect(existsSync(job.report.dir)).toBe(true);

    await expectJobGone(job, await job.cache.collect());
  });

  it("a SIGKILLed job is kept while its lock looks live and collected once the lock is stale", async () => {
    const job = await jobOfChild("killed", "wait-to-be-killed");
    job.child.child.kill("SIGKILL");
    expect(await job.child.exited).toBeNull();
    expect(existsSync(job.report.dir)).toBe(true);

    // The holder died a moment ago: its lock is indistinguishable from a live one for 15 s.
    expect((await job.cache.collect()).removedJobs).toEqual([]);
    expect(existsSync(job.report.dir)).toBe(true);
    ageLock(job.jobDir, 20);

    await expectJobGone(job, await job.cache.collect());
  });

  it("never collects a live job of another cache instance, nor the mirror it uses", async () => {
    const root = await tempDir("live");
    const upstream = createUpstream(root);
    const cacheRoot = join(root, "cache");
    const first = await openCache(cacheRoot);
    const co = await first.checkout(forkRequest(upstream));
    const second = await openCache(cacheRoot);

    expect(await second.collect(0)).toEqual({ removedJobs: [], removedMirrors: [] });
    expect(existsSync(co.dir)).toBe(true);

    await co.release();
    const mirror = await onlyMirror(cacheRoot);
    expect(await second.collect(0)).toEqual({ removedJobs: [], removedMirrors: [mirror.split("/").at(-1)] });
    expect(existsSync(mirror)).toBe(false);
  });

  it("a janitor collecting continuously never breaks a checkout in progress", async () => {
    const root = await tempDir("janitor-race");
    const upstream = createUpstream(root);
    const cacheRoot = join(root, "cache");
    const worker = await openCache(cacheRoot);
    const janitor = await openCache(cacheRoot);
    const done = new AbortController();
    const janitorLoop = (async () => {
      while (!done.signal.aborted) await janitor.collect();
    })();
    const failures: string[] = [];

    // Each checkout opens a window between creating its job directory and locking it; a collect()
    // that lands there deletes a live job. Sequential checkouts keep the run short but hit it often.
    try {
      for (let i = 0; i < 40; i += 1) {
        const co = await worker.checkout(forkRequest(upstream)).catch((err: unknown) => {
          failures.push(String(err));
          return null;
        });
        await co?.release();
      }
    } finally {
      done.abort();
      await janitorLoop;
    }

    expect(failures).toEqual([]);
  });

  it("a mirror lock held by another process makes checkout fail LOCK_TIMEOUT, leaving no job behind", async () => {
    const root = await tempDir("lock-timeout");
    const upstream = createUpstream(root);
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot, { lockWaitMs: 300 });
    await (await cache.checkout(forkRequest(upstream))).release();
    const mirror = await onlyMirror(cacheRoot);
    mkdirSync(`${mirror}.lock`);

    const error = await expectAppError(cache.checkout(forkRequest(upstream)), "LOCK_TIMEOUT");

    expect(error.message).toContain("300 ms");
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });
});
