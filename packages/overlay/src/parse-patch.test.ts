import { describe, expect, it } from "vitest";
import { PatchParser } from "./parse-patch.js";

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
    expect([...parse(patch).entries()]).toEqual([["kept", { added: [{ start: 1, end: 1 }], hunks: [{ start: 1, end: 1 }] }]]);
  });

  it("records nothing for a section without hunks (binary, pure rename)", () => {
    const patch = "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n";
    expect(parse(patch).size).toBe(0);
  });
});
