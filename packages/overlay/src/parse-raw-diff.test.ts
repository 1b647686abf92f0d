import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
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

describe("parseRawDiff and parseBinaryPaths on hostile names", () => {
  // 4N vs N: the fastest of several CPU timings of each, N grown until a run takes tens of ms.
  // N grows at most 8×: the inputs start at 16 M characters (64 M of a string is V8's limit's half).
  const growth = (run: (records: readonly string[]) => unknown, make: (size: number) => string[], size: number) =>
    growthRatio(run, make, size, { maxGrowth: 8 });
  // Names full of tabs and spaces, seeded lengths; one huge name; many small records.
  const names = (size: number) => {
    let seed = 9;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const records: string[] = [];
    for (let length = 0; length < size;) {
      const name = "\t ".repeat(Math.floor(next() * 200));
      records.push(`:100644 100644 ${Z} ${Z} ${next() < 0.3 ? "R100" : "M"}`, name, name, `-\t-\t${name}`);
      length += 4 * name.length + 100;
    }
    return records;
  };
  const huge = (size: number) => [`:100644 100644 ${Z} ${Z} M${" x".repeat(size / 2)}`, "\t".repeat(size), `1\t2\t${"\t".repeat(size)}`];

  it.each([
    ["raw records of tab-filled names", parseRawDiff, names, 16_000_000],
    ["numstat records of tab-filled names", parseBinaryPaths, names, 16_000_000],
    ["one huge raw record", parseRawDiff, huge, 16_000_000],
    ["one huge numstat record", parseBinaryPaths, huge, 16_000_000],
  ] as const)("reads %s in linear time (4× the input, at most 6× the time)", (_name, run, make, size) => {
    expect(growth(run, make, size)).toBeLessThanOrEqual(6);
  });

  it("reads a status after a hostile number of fields", () => {
    expect(parseRawDiff([`:100644 100755 ${Z} ${Z} D extra fields`, "p"])).toEqual([{ status: "deleted", path: "p", previousPath: null, newMode: "100755" }]);
  });
});
