import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { DiffBudget, MAX_OMITTED_NAMES } from "./diff-budget.js";

const modified = (path: string, lines: number) =>
  [
    `diff --git a/${path} b/${path}`,
    "index 1111111..2222222 100644",
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -1,0 +1,${lines} @@`,
    ...Array.from({ length: lines }, (_, i) => `+added ${i}`),
    "",
  ].join("\n");

/** A first file that fits exactly, so that later files are omitted rather than shown cut. */
const FITS = "diff --git a/k b/k\n";
const omittedAfterFits = (patch: string) => budget(FITS + patch, FITS.length).omitted;

function budget(patch: string, maxBytes: number, chunkSize = patch.length) {
  const diff = new DiffBudget(maxBytes);
  const bytes = Buffer.from(patch);
  for (let i = 0; i < bytes.length; i += chunkSize) diff.push(bytes.subarray(i, i + chunkSize));
  return diff.finish();
}

describe("DiffBudget", () => {
  it.each([1, 5, 4096])("keeps a patch that fits whole (chunks of %i bytes)", (chunk) => {
    const patch = modified("a.ts", 3) + modified("b.ts", 2);
    expect(budget(patch, 10_000, chunk)).toEqual({ text: patch, truncated: false, omitted: [], omittedCount: 0, cut: null });
  });

  it("leaves out whole files that do not fit, and still takes later ones that do", () => {
    const small = modified("small.ts", 2);
    const big = modified("big.ts", 1000);
    const last = modified("last.ts", 1);
    const diff = budget(small + big + last, small.length + last.length + 10, 100);
    expect(diff).toEqual({ text: small + last, truncated: true, omitted: ["big.ts"], omittedCount: 1, cut: null });
  });

  it("shows the first file cut at a line boundary when no file fits", () => {
    const patch = modified("huge.ts", 1000) + modified("other.ts", 1000);
    const diff = budget(patch, 500, 64);
    expect(diff).toMatchObject({ truncated: true, omitted: ["other.ts"], omittedCount: 1, cut: "huge.ts" });
    expect(Buffer.byteLength(diff.text)).toBeLessThanOrEqual(500);
    expect(patch.startsWith(diff.text)).toBe(true);
    expect(diff.text.endsWith("\n")).toBe(true);
  });

  it.each([
    ["a C-quoted path", 'diff --git "a/sp ace \\303\\251" "b/sp ace \\303\\251"\nindex 1..2 100644\n', "sp ace é"],
    ["a path with ' b/' in it", "diff --git a/x b/y b/x b/y\nindex 1..2 100644\n", "x b/y"],
    ["a rename", 'diff --git a/-dash "b/new name \\303\\251"\nsimilarity index 100%\nrename from -dash\nrename to "new name \\303\\251"\n', "new name é"],
    ["a copy", "diff --git a/a b/c d\nsimilarity index 90%\ncopy from a\ncopy to c d\n", "c d"],
    ["a binary file", "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n", "img.png"],
  ])("names %s by its new path", (_name, section, name) => {
    expect(omittedAfterFits(section + modified("z", 1))).toEqual([name, "z"]);
  });

  it("does not take a rename line inside a hunk for a header", () => {
    const patch = `${modified("a.ts", 1)}+rename to evil\n`.replace("+1,1 @@", "+1,2 @@");
    expect(omittedAfterFits(patch)).toEqual(["a.ts"]);
  });

  it("names a type change (two sections of one path) once", () => {
    const patch =
      "diff --git a/l b/l\ndeleted file mode 100644\n--- a/l\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
      "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n";
    expect(budget(FITS + patch + modified("m", 1), FITS.length)).toMatchObject({ omitted: ["l", "m"], omittedCount: 2 });
  });

  it(`names at most ${MAX_OMITTED_NAMES} omitted files and counts them all`, () => {
    const patch = Array.from({ length: 250 }, (_, i) => modified(`f${i}`, 5)).join("");
    const diff = budget(patch, 10, 4096);
    expect(diff.omitted).toHaveLength(MAX_OMITTED_NAMES);
    expect(diff.omittedCount).toBe(249);
    expect(diff.cut).toBe("f0");
  });

  // 4N vs N (CPU time), streamed in 64 KiB chunks: many files, and one file of one giant line.
  const many = (n: number) => Buffer.from(Array.from({ length: Math.ceil(n / 400) }, (_, i) => modified(`d/f${i}.ts`, 20)).join(""));
  const giantLine = (n: number) => Buffer.from(`diff --git a/m.js b/m.js\n--- a/m.js\n+++ b/m.js\n@@ -0,0 +1 @@\n+${"x".repeat(n)}\n`);
  it.each([
    ["many files", many],
    ["one giant line", giantLine],
  ] as const)(
    "cuts %s in linear time (4× the input, at most 6× the time)",
    (_name, make) => {
      const run = (patch: Buffer) => {
        const diff = new DiffBudget(200 * 1024);
        for (let i = 0; i < patch.length; i += 65_536) diff.push(patch.subarray(i, i + 65_536));
        return diff.finish();
      };
      expect(growthRatio(run, make, 1_000_000)).toBeLessThanOrEqual(6);
    },
    60_000,
  );
});
