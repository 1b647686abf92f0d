import { describe, expect, it } from "vitest";
import { findUnsafeCharacter } from "./unsafe-text.js";

describe("findUnsafeCharacter", () => {
  it.each(["flake8", "src/a b.py", "ünïcödé", "日本語", "emoji 🎉", "tab-free text"])("accepts %j", (value) => {
    expect(findUnsafeCharacter(value)).toBeUndefined();
  });

  it.each([
    ["a\0b", "contains a NUL byte"],
    ["a\tb", "contains the control character U+0009"],
    ["a\nb", "contains the control character U+000A"],
    ["\u001b[2J", "contains the control character U+001B"],
    ["a\u007f", "contains the control character U+007F"],
    ["a\u0085", "contains the control character U+0085"],
    ["a\u2028", "contains the control character U+2028"],
    ["a\u202e", "contains the control character U+202E"],
    ["a\u2069", "contains the control character U+2069"],
  ])("refuses %j: %s", (value, reason) => {
    expect(findUnsafeCharacter(value)).toBe(reason);
  });
});
