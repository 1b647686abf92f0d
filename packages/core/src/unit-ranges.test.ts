import { describe, expect, it } from "vitest";
import { unitClass } from "./unit-ranges.js";

describe("unitClass", () => {
  it("matches the units of its ranges, bounds included, and no others", () => {
    const pattern = unitClass([
      [0x00, 0x08],
      [0x2028, 0x2029],
      [0xd800, 0xd800],
    ]);
    expect(["\u0000", "\u0008", "\u2028", "\u2029", "\ud800"].every((unit) => pattern.test(unit))).toBe(true);
    expect(["\u0009", "a", "\u202a", "\ud801", "\udc00"].some((unit) => pattern.test(unit))).toBe(false);
  });

  it("takes flags", () => {
    expect("a\u0001b\u0002".replace(unitClass([[0x01, 0x02]], "g"), "")).toBe("ab");
  });
});
