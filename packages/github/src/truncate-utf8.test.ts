import { describe, expect, it } from "vitest";
import { truncateUtf8 } from "./truncate-utf8.js";

describe("truncateUtf8", () => {
  it.each([
    ["fits", "hello", 5, "hello"],
    ["ascii cut", "hello world", 8, "hello…"],
    ["never splits a multibyte character", "ééééé", 6, "é…"],
    ["never splits a surrogate pair", "😀😀😀", 9, "😀…"],
    ["budget smaller than the marker", "hello", 2, ""],
  ])("%s", (_name, text, max, expected) => {
    const result = truncateUtf8(text, max);
    expect(result).toBe(expected);
    expect(Buffer.byteLength(result, "utf8")).toBeLessThanOrEqual(max);
  });
});
