import { describe, expect, it } from "vitest";
import { formatBytes } from "./format-bytes.js";

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [700, "700 bytes"],
    [1024, "1 KiB"],
    [12 * 1024 + 100, "12.1 KiB"],
    [2_412_000, "2.3 MiB"],
    [256 * 1024 * 1024, "256 MiB"],
    [1024 * 1024 * 1024 * 3, "3 GiB"],
  ])("%d bytes read as %s", (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
});
