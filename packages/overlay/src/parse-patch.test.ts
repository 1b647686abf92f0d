import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { MAX_PATCH_LINE, PatchParser } from "./parse-patch.js";

function parse(patch: string, chunkSize = patch.length): ReturnType<PatchParser["finish"]> {
  const parser = new PatchParser();
  for (let i = 0; i < patch.length; i += chunkSize) parser.push(patch.slice(i, i + chunkSize));
  return parser.finish();
}

const MODIFIED = [
  "diff --git a/src/x.py b/src/x.py",
  "index 1111111..2222222 100644",
  "--- a/src/x.py",
  "+++ b/src/x.py",
  "@@ -1,3 +1,4 @@",
  " a",
  "-b",
  "+B",
  " c",
  "+d",
  "",
].join("\n");

describe("PatchParser", () => {
  it("reports added lines and hunk extents by new path", () => {
    expect(parse(MODIFIED).get("src/x.py")).toEqual({
      added: [
        { start: 2, end: 2 },
        { start: 4, end: 4 },
      ],
      hunks: [{ start: 1, end: 4 }],
      baseHunks: [{ start: 1, end: 3 }],
    });
  });

  it("reports the extent of each hunk on both sides, none on a side a hunk has no lines of", () => {
    const patch = [
      "diff --git a/m.txt b/m.txt",
      "--- a/m.txt",
      "+++ b/m.txt",
      "@@ -2,0 +3,2 @@",
      "+x",
      "+y",
      "@@ -10,2 +11,0 @@",
      "-p",
      "-q",
      "@@ -20 +19 @@",
      "-r",
      "+R",
      "",
    ].join("\n");
    expect(parse(patch).get("m.txt")).toEqual({
      added: [
        { start: 3, end: 4 },
        { start: 19, end: 19 },
      ],
      hunks: [
        { start: 3, end: 4 },
        { start: 19, end: 19 },
      ],
      baseHunks: [
        { start: 10, end: 11 },
        { start: 20, end: 20 },
      ],
    });
  });

  // serge placed comments one line off after an added line reading "++ foo": a content line taken
  // for a header (or not counted) shifts every line after it. Removed lines reading "--- a/x" too.
  it("counts added and removed lines that start like headers as content", () => {
    const patch = [
      "diff --git a/h.txt b/h.txt",
      "--- a/h.txt",
      "+++ b/h.txt",
      "@@ -1,4 +1,6 @@",
      " one",
      "--- a/evil",
      "+++ foo",
      "++++ b/evil",
      "+@@ -1 +1,40 @@",
      " two",
      " three",
      "@@ -9,3 +10,3 @@",
      " nine",
      "---",
      "+++",
      " eleven",
      "",
    ].join("\n");
    expect(parse(patch).get("h.txt")).toEqual({
      added: [
        { start: 2, end: 4 },
        { start: 11, end: 11 },
      ],
      hunks: [
        { start: 1, end: 6 },
        { start: 10, end: 12 },
      ],
      baseHunks: [
        { start: 1, end: 4 },
        { start: 9, end: 11 },
      ],
    });
  });

  it.each([1, 2, 7, 64])("gives the same answer when fed in %i-character chunks", (size) => {
    expect(parse(MODIFIED, size)).toEqual(parse(MODIFIED));
  });

  it("is not fooled by content lines that look like headers", () => {
    const patch = [
      "diff --git a/a.txt b/a.txt",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -0,0 +1,3 @@",
      "+++ b/evil.txt",
      "+diff --git a/evil b/evil",
      "+@@ -1 +1,99 @@",
      "",
    ].join("\n");
    const files = parse(patch);
    expect([...files.keys()]).toEqual(["a.txt"]);
    expect(files.get("a.txt")?.added).toEqual([{ start: 1, end: 3 }]);
  });

  it.each([
    ['"b/tab\\there.txt"', "tab\there.txt"],
    ['"b/caf\\303\\251.txt"', "café.txt"],
    ['"b/new\\nline"', "new\nline"],
    ["b/with space.txt\t", "with space.txt"],
    ["b/-leading-dash", "-leading-dash"],
  ])("decodes the +++ path %s", (header, path) => {
    const files = parse(`diff --git x y\n--- a/q\n+++ ${header}\n@@ -0,0 +1 @@\n+x\n`);
    expect([...files.keys()]).toEqual([path]);
  });

  it("skips deleted files but still consumes their hunks", () => {
    const patch = [
      "diff --git a/gone b/gone",
      "deleted file mode 100644",
      "--- a/gone",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-+++ b/fake",
      "-@@ -0,0 +1 @@",
      "diff --git a/kept b/kept",
      "--- a/kept",
      "+++ b/kept",
      "@@ -1 +1 @@",
      "-old",
      "+new",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    expect([...parse(patch).entries()]).toEqual([
      ["kept", { added: [{ start: 1, end: 1 }], hunks: [{ start: 1, end: 1 }], baseHunks: [{ start: 1, end: 1 }] }],
    ]);
  });

  it("records nothing for a section without hunks (binary, pure rename)", () => {
    const patch = "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n";
    expect(parse(patch).size).toBe(0);
  });
});

describe("PatchParser on hostile patches", () => {
  const header = (path: string) => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`;

  it("reads a PR adding one long line fed in small chunks", () => {
    const patch = `${header("big.txt")}@@ -0,0 +1,2 @@\n+${"x".repeat(4 * MAX_PATCH_LINE)}\n+end\n`;
    expect(parse(patch, 4096).get("big.txt")).toEqual({ added: [{ start: 1, end: 2 }], hunks: [{ start: 1, end: 2 }], baseHunks: [] });
  });

  it("gives no path to a section whose +++ line was cut", () => {
    const long = "d/".repeat(MAX_PATCH_LINE);
    const patch = `diff --git a/x b/x\n--- a/x\n+++ b/${long}x\n@@ -0,0 +1 @@\n+a\n${header("kept")}@@ -0,0 +1 @@\n+b\n`;
    expect([...parse(patch, 1000).keys()]).toEqual(["kept"]);
  });

  it("collects 200k alternating added lines without a stack overflow", () => {
    const body = Array.from({ length: 200_000 }, (_, index) => (index % 2 === 0 ? "+a" : " c")).join("\n");
    const added = parse(`${header("a")}@@ -1,100000 +1,200000 @@\n${body}\n`).get("a")?.added ?? [];
    expect(added).toHaveLength(100_000);
    expect(added.at(-1)).toEqual({ start: 199_999, end: 199_999 });
  });

  // 4N vs N: the fastest of several CPU timings of each, N grown until a run takes tens of ms.
  // `job(n)` is one run on an input of size n.
  const growth = (job: (n: number) => () => void, size: number) =>
    growthRatio(
      (run: () => void) => {
        run();
      },
      job,
      size,
    );
  const chunked = (make: (size: number) => string, chunk: number) => (n: number) => {
    const patch = make(n);
    return () => void parse(patch, chunk);
  };
  // One added line of n characters arriving as n / chunk pushes of one shared chunk, as git's
  // stdout does: the work is the parser's, with no giant string for the cache to miss on.
  const streamedLine = (chunk: number) => (n: number) => {
    const piece = "x".repeat(chunk);
    return () => {
      const parser = new PatchParser();
      parser.push(`${header("big.txt")}@@ -0,0 +1 @@\n+`);
      for (let sent = 0; sent < n; sent += chunk) parser.push(piece);
      parser.push("\n");
      expect(parser.finish().get("big.txt")?.added).toEqual([{ start: 1, end: 1 }]);
    };
  };
  // mulberry32, seeded: content lines of random lengths, some very long, some looking like headers.
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const benign = (size: number) => {
    const next = random(7);
    const lines: string[] = [];
    for (let length = 0; length < size;) {
      const line = `${next() < 0.5 ? "+" : " "}${"x".repeat(Math.floor(next() * 80))}`;
      lines.push(next() < 0.02 ? "+@@ -1 +1,99 @@" : line);
      length += line.length + 1;
    }
    const added = lines.filter((line) => line.startsWith("+")).length;
    return `${header("a.txt")}@@ -1,${lines.length - added} +1,${lines.length} @@\n${lines.join("\n")}\n`;
  };

  it.each([
    // A line of a gigabyte is fine: it is counted, never held (the old re-split took 49 s on 64 MiB).
    ["one long added line, 64 KiB chunks", streamedLine(65_536), 256_000_000],
    ["one long added line, 1 KiB chunks", streamedLine(1024), 1_000_000_000],
    ["benign content, 64 KiB chunks", chunked(benign, 65_536), 8_000_000],
  ] as const)("reads %s in linear time (4× the input, at most 6× the time)", (_name, job, size) => {
    expect(growth(job, size)).toBeLessThanOrEqual(6);
  });
});
