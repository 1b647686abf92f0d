import { describe, expect, it } from "vitest";
import { parseBinaryPaths, parseRawDiff } from "./parse-raw-diff.js";

const Z = "0".repeat(40);

describe("parseRawDiff", () => {
  it.each([
    ["A", ["a new file"], { status: "added", path: "a new file", previousPath: null }],
    ["M", ["-dash"], { status: "modified", path: "-dash", previousPath: null }],
    ["D", ["line\nbreak"], { status: "deleted", path: "line\nbreak", previousPath: null }],
    ["R087", ["old", "new"], { status: "renamed", path: "new", previousPath: "old" }],
    ["C100", ["src", "copy"], { status: "copied", path: "copy", previousPath: "src" }],
    ["T", ["link"], { status: "type-changed", path: "link", previousPath: null }],
  ])("parses status %s", (status, paths, expected) => {
    const records = [`:100644 100755 ${Z} ${Z} ${status}`, ...paths];
    expect(parseRawDiff(records)).toEqual([{ ...expected, newMode: "100755" }]);
  });

  it("parses several records in a row", () => {
    const records = [`:000000 100644 ${Z} ${Z} A`, "a", `:100644 100644 ${Z} ${Z} R100`, "b", "c", `:100644 000000 ${Z} ${Z} D`, "d"];
    expect(parseRawDiff(records).map((c) => c.path)).toEqual(["a", "c", "d"]);
  });
});

describe("parseBinaryPaths", () => {
  it("finds binary files, including renamed ones", () => {
    const records = ["1\t2\ttext.txt", "-\t-\timage.png", "-\t-\t", "old.bin", "new.bin", "3\t0\t", "a", "b"];
    expect([...parseBinaryPaths(records)]).toEqual(["image.png", "new.bin"]);
  });
});
