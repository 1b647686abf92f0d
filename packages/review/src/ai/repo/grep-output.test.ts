import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { GrepOutput } from "./grep-output.js";

const SHA = "a".repeat(40);
const record = (path: string, line: number, text: string | Buffer) =>
  Buffer.concat([Buffer.from(`${SHA}:${path}\0${line}\0`), Buffer.from(text), Buffer.from("\n")]);

function parse(output: Buffer, chunkSize = output.length, options: Partial<{ maxHits: number; maxTextChars: number }> = {}) {
  const parser = new GrepOutput({ prefix: `${SHA}:`, maxHits: 200, maxTextChars: 300, ...options });
  let stopped = false;
  for (let i = 0; i < output.length && !stopped; i += chunkSize) stopped = parser.push(output.subarray(i, i + chunkSize));
  return { hits: parser.hits, more: parser.more, stopped };
}

describe("GrepOutput", () => {
  it.each([1, 3, 7, 1024])("reassembles hits split into chunks of %i bytes", (chunk) => {
    const output = Buffer.concat([record("src/a b.ts", 3, "const x = 1;"), record("dir\nwith newline/é", 12, "x")]);
    expect(parse(output, chunk).hits).toEqual([
      { path: "src/a b.ts", line: 3, text: "const x = 1;" },
      { path: "dir\nwith newline/é", line: 12, text: "x" },
    ]);
  });

  it("keeps a NUL inside the text in the text (it ends at the newline only)", () => {
    const output = Buffer.concat([record("a", 1, Buffer.from("x\0y\0z")), record("b", 2, "ok")]);
    expect(parse(output).hits).toEqual([
      { path: "a", line: 1, text: "x\0y\0z" },
      { path: "b", line: 2, text: "ok" },
    ]);
  });

  it("cuts long lines to maxTextChars with a final ellipsis, never inside a surrogate pair", () => {
    const [long] = parse(record("a", 1, "x".repeat(10_000)), 64).hits;
    expect(long?.text).toBe(`${"x".repeat(300)}…`);
    const [emoji] = parse(record("a", 1, `${"x".repeat(299)}😀😀`), 64).hits;
    expect(emoji?.text).toBe(`${"x".repeat(299)}…`);
    const [exact] = parse(record("a", 1, "y".repeat(300))).hits;
    expect(exact?.text).toBe("y".repeat(300));
  });

  it("stops past the hit cap and says there are more; exactly the cap is not more", () => {
    const hits = (count: number) => Buffer.concat(Array.from({ length: count }, (_, i) => record("f", i + 1, "hit")));
    const over = parse(hits(5), 10, { maxHits: 3 });
    expect(over).toMatchObject({ more: true, stopped: true });
    expect(over.hits.map((hit) => hit.line)).toEqual([1, 2, 3]);
    expect(parse(hits(3), 10, { maxHits: 3 })).toMatchObject({ more: false, stopped: false });
  });

  it.each([
    ["a path without the commit prefix", Buffer.from("other:a\x001\x00x\n")],
    ["a line number that is not one", Buffer.from(`${SHA}:a\0x1\0x\n`)],
    ["line 0", Buffer.from(`${SHA}:a\x000\x00x\n`)],
  ])("drops %s", (_name, output) => {
    expect(parse(Buffer.concat([output, record("ok", 1, "fine")])).hits.filter((hit) => hit.path !== "ok")).toEqual([]);
  });

  it("drops an unfinished last record (git killed mid-line)", () => {
    expect(parse(Buffer.concat([record("ok", 1, "fine"), Buffer.from(`${SHA}:a\x001\x00no newline`)])).hits).toEqual([{ path: "ok", line: 1, text: "fine" }]);
  });

  // 4N vs N (CPU time): many hits, and one giant matching line streamed in 64 KiB chunks.
  it.each([
    ["many short hits", (n: number) => Buffer.concat(Array.from({ length: n / 64 }, (_, i) => record(`src/f${i % 97}.ts`, i + 1, "x".repeat(i % 40))))],
    ["one giant line", (n: number) => record("min.js", 1, "y".repeat(n))],
  ] as const)(
    "parses %s in linear time (4× the input, at most 6× the time)",
    (_name, make) => {
      const run = (output: Buffer) => parse(output, 65_536, { maxHits: Number.MAX_SAFE_INTEGER });
      expect(growthRatio(run, make, 1_000_000)).toBeLessThanOrEqual(6);
    },
    60_000,
  );
});
