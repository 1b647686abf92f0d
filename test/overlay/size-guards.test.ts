import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHECKOUT_LIMITS, type CheckoutLimits } from "@reviewbot/overlay/checkout-limits";
import { expectAppError, forkRequest, jobEntries, openCache } from "../support/clone-cache-harness.js";
import { createUpstream, type WorkTreeWriter } from "../support/git-fixture.js";
import { gitBombTree, withRootEntries } from "../support/git-trees.js";
import { useTempDirs } from "../support/temp-dirs.js";
import { diskUsage } from "../support/tree-snapshot.js";

const tempDir = useTempDirs();

const SMALL: CheckoutLimits = { maxFiles: 30, maxTotalBytes: 20_000, maxPathDepth: 6, maxPathBytes: 120 };

/** Starts a checkout of a fork made by `edit` under `limits`; the caller awaits the attempt. */
async function checkoutUnder(label: string, limits: CheckoutLimits, edit: (tree: WorkTreeWriter) => void) {
  const root = await tempDir(label);
  const upstream = createUpstream(root);
  upstream.commitOn("fork", edit);
  const cacheRoot = join(root, "cache");
  const cache = await openCache(cacheRoot, { limits });
  const attempt = cache.checkout(forkRequest(upstream));
  return { attempt, cacheRoot };
}

describe("size guards", () => {
  it("refuses a git bomb (10 entries x 7 levels = 10^7 files) without filling the disk", async () => {
    const root = await tempDir("bomb");
    const upstream = createUpstream(root);
    const bomb = gitBombTree(upstream, 10, 7);
    upstream.commitTreeOn("fork", withRootEntries(upstream, "fork", [{ mode: "040000", name: "bomb", sha: bomb }]));
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);

    const error = await expectAppError(cache.checkout(forkRequest(upstream)), "CHECKOUT_TOO_LARGE");

    expect(error.message).toContain(`more than ${DEFAULT_CHECKOUT_LIMITS.maxFiles} files`);
    expect(await jobEntries(cacheRoot)).toEqual([]);
    expect(diskUsage(cacheRoot)).toBeLessThan(50 * 1024 * 1024);
  });

  const cases: readonly (readonly [string, (tree: WorkTreeWriter) => void, RegExp])[] = [
    [
      "too many files",
      (tree) => {
        for (let i = 0; i < 40; i += 1) tree.write(`many/f${i}.txt`, "x\n");
      },
      /more than 30 files/,
    ],
    [
      "too many bytes",
      (tree) => {
        tree.write("big.bin", Buffer.alloc(25_000, 1));
      },
      /more than 20000 bytes in total/,
    ],
    [
      "a path too deep",
      (tree) => {
        tree.write("a/b/c/d/e/f/g.txt", "deep\n");
      },
      /a path deeper than 6 directories/,
    ],
    [
      "a path too long",
      (tree) => {
        tree.write(`${"n".repeat(130)}.txt`, "long\n");
      },
      /a path longer than 120 bytes/,
    ],
  ];

  it.each(cases)("refuses %s, with nothing left in jobs/", async (label, edit, message) => {
    const { attempt, cacheRoot } = await checkoutUnder("limit", SMALL, edit);

    const error = await expectAppError(attempt, "CHECKOUT_TOO_LARGE");

    expect(error.message, label).toMatch(message);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  it("accepts a tree exactly at the limits", async () => {
    // 3 source files + 4 .ai files + 23 = 30 files; depth 6; the longest path is 120 bytes.
    const { attempt } = await checkoutUnder("at-limit", SMALL, (tree) => {
      for (let i = 0; i < 21; i += 1) tree.write(`many/f${i}.txt`, "x\n");
      tree.write("a/b/c/d/e/g.txt", "deep\n");
      tree.write(`${"n".repeat(116)}.txt`, "long\n");
    });

    const co = await attempt;

    expect(co.diff.files).toHaveLength(23);
    await co.release();
  });
});
