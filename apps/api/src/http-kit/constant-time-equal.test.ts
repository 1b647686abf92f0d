import { describe, expect, it } from "vitest";
import { constantTimeEqual } from "./constant-time-equal.js";

describe("constantTimeEqual", () => {
  it.each([
    ["equal", "s3cret-credential", "s3cret-credential", true],
    ["different", "s3cret-credential", "s3cret-credentiaL", false],
    ["a prefix", "s3cret", "s3cret-credential", false],
    ["longer", "s3cret-credential-and-more", "s3cret-credential", false],
    ["empty against set", "", "s3cret-credential", false],
    ["both empty", "", "", true],
    ["unicode", "pässwörd-ü", "pässwörd-ü", true],
  ])("%s", (_name, presented, expected, result) => {
    expect(constantTimeEqual(presented, expected)).toBe(result);
  });
});
