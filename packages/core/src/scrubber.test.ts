import { describe, expect, it } from "vitest";
import { REDACTED, SecretScrubber } from "./scrubber.js";

describe("SecretScrubber", () => {
  it("replaces every occurrence of a registered secret", () => {
    const scrubber = new SecretScrubber();
    scrubber.register("ghs_abcdefghijklmnop");
    expect(scrubber.scrub("a ghs_abcdefghijklmnop b ghs_abcdefghijklmnop")).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("replaces the longer of two overlapping secrets whole", () => {
    const scrubber = new SecretScrubber();
    scrubber.register("secret-value");
    scrubber.register("secret-value-longer");
    expect(scrubber.scrub("x secret-value-longer y")).toBe(`x ${REDACTED} y`);
  });

  it("ignores values too short to be secrets", () => {
    const scrubber = new SecretScrubber();
    scrubber.register("abc");
    expect(scrubber.scrub("abc abc")).toBe("abc abc");
  });

  it("stops scrubbing a forgotten secret", () => {
    const scrubber = new SecretScrubber();
    scrubber.register("temporary-token");
    scrubber.forget("temporary-token");
    expect(scrubber.scrub("temporary-token")).toBe("temporary-token");
  });
});
