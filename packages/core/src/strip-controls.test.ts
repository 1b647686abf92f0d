import { describe, expect, it } from "vitest";
import { stripControls } from "./strip-controls.js";

describe("stripControls", () => {
  it.each([
    ["keeps tab and newline", "a\tb\nc", "a\tb\nc"],
    ["drops NUL, ESC, CR and DEL", "a\u0000b\u001bc\rd\u007fe", "abcde"],
    ["drops C1 controls", "a\u0085b\u009bc", "abc"],
    ["drops bidi overrides and isolates (Trojan Source)", "a\u202eb\u2066c\u2069d", "abcd"],
    ["drops LRM, RLM and ALM", "a\u200eb\u200fc\u061cd", "abcd"],
    ["keeps other text", "héllo, 世界 ✓", "héllo, 世界 ✓"],
  ])("%s", (_name, input, expected) => {
    expect(stripControls(input)).toBe(expected);
  });
});
