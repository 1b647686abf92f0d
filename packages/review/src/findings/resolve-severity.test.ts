import { describe, expect, it } from "vitest";
import { resolveSeverity } from "./resolve-severity.js";

describe("resolveSeverity", () => {
  it.each([
    [undefined, "E501", "error", "error", "error"],
    [{}, "E501", "warning", "warning", "warning"],
    [{ E501: "notice" }, "E501", "error", "error", "notice"],
    [{ E501: "notice", error: "warning" }, "E501", "error", "error", "notice"],
    [{ convention: "warning" }, "C0114", "convention", "notice", "warning"],
    [{ convention: "warning", default: "error" }, "C0114", "refactor", "notice", "error"],
    [{ default: "error" }, null, null, "notice", "error"],
    [{ E501: "notice" }, null, "E501", "warning", "notice"],
    // Names that exist on Object.prototype must not be found through it.
    [{}, "constructor", "toString", "warning", "warning"],
    [{}, "__proto__", "hasOwnProperty", "error", "error"],
  ] as const)("map %j, rule %j, level %j, fallback %s → %s", (map, rule, level, fallback, expected) => {
    expect(resolveSeverity(map, rule, level, fallback)).toBe(expected);
  });
});
