import { describe, expect, it } from "vitest";
import { NulRecords, splitNul } from "./nul-records.js";

describe("NulRecords", () => {
  it("reassembles records split across chunks", () => {
    const splitter = new NulRecords();
    const seen = [...splitter.push(Buffer.from("ab\0c")), ...splitter.push(Buffer.from("d\0\0e")), ...splitter.push(Buffer.from("f\0"))];
    expect(seen.map((b) => b.toString())).toEqual(["ab", "cd", "", "ef"]);
  });
});

describe("splitNul", () => {
  it.each([
    ["a\0b\0", ["a", "b"]],
    ["", []],
    ["only", ["only"]],
  ])("splits %j", (input, expected) => {
    expect(splitNul(Buffer.from(input))).toEqual(expected);
  });
});
