import { REDACTED, SecretScrubber } from "@reviewbot/core/scrubber";
import { describe, expect, it } from "vitest";
import { scrubDeep } from "./scrub-deep.js";

describe("scrubDeep", () => {
  const scrubber = new SecretScrubber();
  scrubber.register("ghs_secretvalue");
  it.each([
    ["string", "a ghs_secretvalue b", `a ${REDACTED} b`],
    ["nested", { x: [{ y: "ghs_secretvalue" }], n: 3, z: null }, { x: [{ y: REDACTED }], n: 3, z: null }],
    ["untouched", { a: true, b: ["c"] }, { a: true, b: ["c"] }],
  ])("%s", (_name, input, expected) => {
    expect(scrubDeep(input, scrubber)).toEqual(expected);
  });
});
